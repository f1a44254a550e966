import type { FastifyReply, FastifyRequest } from 'fastify';
import { consentMatters, consentNeeded, type SignInReason, signInNeeded } from '../../authorize/interaction-policy.js';
import type { AuthorizationRequest } from '../../authorize/request.js';
import { approvedResponseParameters } from '../../authorize/respond.js';
import { nowSeconds } from '../../clock.js';
import { ConsentRequired, LoginRequired } from '../../errors.js';
import type { AuthenticatedUser } from '../../session/browser-session.js';
import { sendingStoreFailuresToClient, showConsent, showLogin, viewOf } from './interaction.js';
import type { AuthorizeRouteOptions } from './options.js';
import { sendToClient } from './response.js';

const LOGIN_REQUIRED: Record<SignInReason, string> = {
  no_session: 'the user is not signed in',
  prompt_login: 'prompt=login asks the user to sign in again',
  max_age: 'the user signed in longer ago than max_age',
};

/**
 * A valid authorization request, with the browser's session: the login page, the consent
 * page, or (signed in, consent given before or not needed) the response at once. With
 * prompt=none no page is shown: OpenID Connect Core 1.0 §3.1.2.1, "The Authorization
 * Server MUST NOT display any authentication or consent user interface pages. An error
 * is returned if an End-User is not already authenticated or the Client does not have
 * pre-configured consent for the requested Claims".
 */
export async function proceed(
  endpoint: AuthorizeRouteOptions,
  request: FastifyRequest,
  reply: FastifyReply,
  authorization: AuthorizationRequest,
  session: { user: AuthenticatedUser | undefined; signedInForThisRequest: boolean },
): Promise<FastifyReply> {
  const { user } = session;
  const signIn = signInNeeded(authorization, user, session.signedInForThisRequest, nowSeconds(endpoint.clock));
  if (signIn !== undefined || !user) {
    if (authorization.prompt.has('none')) throw new LoginRequired(LOGIN_REQUIRED[signIn ?? 'no_session']).redirectingTo(authorization);
    return showLogin(endpoint, request, reply, authorization, undefined, user?.sub);
  }
  const remembered = consentMatters(authorization)
    ? await sendingStoreFailuresToClient(authorization, () => endpoint.consents.findConsent(user.sub, authorization.client.clientId))
    : undefined;
  if (consentNeeded(authorization, remembered, endpoint.defaultAudience)) {
    if (authorization.prompt.has('none'))
      throw new ConsentRequired('the user has not approved this access for this client').redirectingTo(authorization);
    return showConsent(endpoint, request, reply, authorization, user.sub);
  }
  const parameters = await sendingStoreFailuresToClient(authorization, () =>
    approvedResponseParameters(authorization, user, endpoint.responses),
  );
  return sendToClient(reply, authorization, parameters, {
    issuer: endpoint.issuer,
    afterPost: request.method === 'POST',
    view: viewOf(endpoint, request),
  });
}

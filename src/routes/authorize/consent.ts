import type { FastifyInstance } from 'fastify';
import { consentedAudiences } from '../../authorize/interaction-policy.js';
import { approvedResponseParameters, deniedAuthorization } from '../../authorize/respond.js';
import { InvalidRequest } from '../../errors.js';
import { cookieJar } from './cookies.js';
import { readSubmittedForm, returnToAuthorize, sendingStoreFailuresToClient, viewOf } from './interaction.js';
import type { AuthorizeRouteOptions } from './options.js';
import { sendErrorToClient, sendToClient } from './response.js';

/** POST of the consent form: Deny sends access_denied to the client, Allow issues the response. */
export async function consentRoute(app: FastifyInstance, endpoint: AuthorizeRouteOptions): Promise<void> {
  app.post(endpoint.paths.consent, async (request, reply) => {
    const { fields, authorization } = await readSubmittedForm(endpoint, request, reply);
    const user = endpoint.session.current(cookieJar(request, reply));
    // The session ended while the page was open: sign in again, then consent again.
    if (!user) return returnToAuthorize(endpoint, reply, authorization);
    const decision = fields.get('decision');
    if (decision === 'deny') {
      const denied = deniedAuthorization(authorization, user, endpoint.responses.events);
      return sendErrorToClient(reply, authorization, denied, { issuer: endpoint.issuer, afterPost: true, view: viewOf(endpoint, request) });
    }
    if (decision !== 'allow') throw new InvalidRequest('the consent form was incomplete: choose Allow or Deny');
    const parameters = await sendingStoreFailuresToClient(authorization, async () => {
      // Remembered, so a later request for no more than this skips the page (CONSENT_TTL).
      if (endpoint.consentTtlSeconds > 0) {
        const consent = { scope: authorization.scope, audiences: consentedAudiences(authorization, endpoint.defaultAudience) };
        await endpoint.consents.rememberConsent(user.sub, authorization.client.clientId, consent, endpoint.consentTtlSeconds);
      }
      return approvedResponseParameters(authorization, user, endpoint.responses);
    });
    return sendToClient(reply, authorization, parameters, { issuer: endpoint.issuer, afterPost: true, view: viewOf(endpoint, request) });
  });
}

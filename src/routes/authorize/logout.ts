import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type LogoutRequest, logoutParameters, validateLogoutRequest } from '../../authorize/logout-request.js';
import { nowSeconds } from '../../clock.js';
import { FormRefused, InvalidRequest } from '../../errors/index.js';
import { FormParams, type Parameters, queryParametersOf } from '../../oauth/form-params.js';
import { carriedParameters } from '../../authorize/interaction.js';
import { validRequest } from '../../authorize/pipeline.js';
import { resumedSignOut, upstreamSignOut } from '../../authorize/upstream-sign-out.js';
import { formTargetOf, sendPage } from '../../pages/html.js';
import { logoutPage, signedOutPage } from '../../pages/logout.js';
import { cookieJar, postedForm } from './browser.js';
import type { PageView } from '../../pages/view.js';
import { answer, viewOf } from './answer.js';
import type { AuthorizeRouteOptions } from './options.js';

/**
 * Sign-out: `GET /oauth2/logout` asks (a page with a form), `POST /oauth2/logout` with that
 * form's CSRF token ends the browser session. A GET never signs out, so no other site can
 * sign a user out with an image or a link. Afterwards the browser goes to the client's
 * registered post_logout_redirect_uri (with `state`), or sees a "signed out" page.
 */

/** How long the confirmation form stays valid. */
const LOGOUT_FORM_TTL_SECONDS = 900;

/** Where the signed-out browser goes: the client's URI with `state` (303 after the form), else the page. */
function signedOut(reply: FastifyReply, view: PageView, logout: LogoutRequest, statusAfterForm: 302 | 303): FastifyReply {
  if (logout.postLogoutRedirectUri === undefined) return sendPage(reply, 200, signedOutPage(view));
  const location = new URL(logout.postLogoutRedirectUri);
  if (logout.state !== undefined) location.searchParams.append('state', logout.state);
  return reply
    .code(statusAfterForm)
    .header('location', location.href)
    .header('cache-control', 'no-store')
    .header('referrer-policy', 'no-referrer')
    .send();
}

/**
 * An invalid sign-out request throws InvalidRequest without `redirectTo`: the endpoint's
 * error page (400), never a redirect to an unverified URI (RP-Initiated Logout §3, as
 * RFC 6749 §4.1.2.1 for redirect URIs).
 */
export async function logoutRoutes(app: FastifyInstance, endpoint: AuthorizeRouteOptions): Promise<void> {
  const { session, signer, clock } = endpoint.pipeline;
  const validation = { clients: endpoint.clients, verifyHint: (token: string) => endpoint.pipeline.idTokens.verifyHint(token) };
  /** The confirmation page of a sign-out request (GET, or an RP's form POST: RP-Initiated Logout §2 allows both). */
  const confirm = async (request: FastifyRequest, reply: FastifyReply, received: Parameters) => {
    const logout = await validateLogoutRequest(received, validation);
    const view = viewOf(endpoint, request);
    const jar = cookieJar(request, reply);
    const user = session.current(jar);
    // Nobody is signed in: nothing to confirm, nothing changes.
    if (!user) return signedOut(reply, view, logout, 302);
    const form = {
      action: endpoint.paths.logout,
      logout: signer.sign('logout', logoutParameters(logout), nowSeconds(clock) + LOGOUT_FORM_TTL_SECONDS),
      csrfToken: session.csrfToken(jar),
      subject: await endpoint.pipeline.displayNameOf(user.sub),
      clientName: logout.clientName,
    };
    // Chrome applies form-action to the redirect that follows the submission: allow the post-logout URI's origin.
    const formTargets = logout.postLogoutRedirectUri !== undefined ? [formTargetOf(logout.postLogoutRedirectUri)] : [];
    return sendPage(reply, 200, logoutPage(view, form), { formTargets });
  };
  app.get(endpoint.paths.logout, (request, reply) => confirm(request, reply, queryParametersOf(request.url)));

  app.post(endpoint.paths.logout, async (request, reply) => {
    const posted = postedForm(request);
    const fields = FormParams.fromEntries(posted);
    // Not our confirmation form (no CSRF token, nothing signed): a client's sign-out request sent as a form.
    if (!fields.has('csrf_token') && !fields.has('logout') && !fields.has('interaction')) return confirm(request, reply, posted);
    const jar = cookieJar(request, reply);
    if (!session.csrfTokenValid(jar, fields.get('csrf_token'))) {
      throw new FormRefused('this form was not sent from this site, or your session changed: sign out from the page of this server');
    }
    // "Not you?" on the login or consent page: sign out, then the same authorization request again.
    const interaction = fields.get('interaction');
    if (interaction !== undefined) {
      const authorization = await validRequest(carriedParameters(interaction, endpoint.pipeline), endpoint.pipeline);
      session.end(jar);
      return answer(endpoint, request, reply, { kind: 'restart', request: authorization });
    }
    const carried = signer.verify<Parameters>('logout', fields.get('logout'), nowSeconds(clock));
    if (!Array.isArray(carried)) throw new InvalidRequest('this sign-out form has expired or was altered: sign out again');
    // Again: the client may have been removed, or its URIs changed, since the page was shown.
    const logout = await validateLogoutRequest(carried, validation);
    const user = session.current(jar);
    session.end(jar);
    // Signed in through a provider with end_session: its sign-out first, and back (below).
    const upstream = user && (await upstreamSignOut(user, logoutParameters(logout), endpoint.pipeline));
    if (upstream !== undefined)
      return reply
        .code(303)
        .header('location', upstream)
        .header('cache-control', 'no-store')
        .header('referrer-policy', 'no-referrer')
        .send();
    return signedOut(reply, viewOf(endpoint, request), logout, 303);
  });

  // Back from a provider's sign-out: the sign-out asked of us, as it was asked (validated again).
  app.get<{ Params: { provider: string } }>(endpoint.paths.upstreamSignedOut, async (request, reply) => {
    const state = new URL(request.url, 'http://localhost').searchParams.get('state') ?? undefined;
    const logout = await validateLogoutRequest(resumedSignOut(request.params.provider, state, endpoint.pipeline), validation);
    return signedOut(reply, viewOf(endpoint, request), logout, 302);
  });
}

import { InvalidRequest } from '../errors/index.js';
import type { FormParams } from '../oauth/form-params.js';
import type { CookieJar } from '../session/browser-session.js';
import { signInMark } from '../session/sign-in-mark.js';
import { submittedParameters } from './interaction.js';
import { type AuthorizeDependencies, type AuthorizeOutcome, methodsOf, validRequest } from './pipeline.js';
import { demandsOf, signInFailure, startFederatedSession, upstreamLocation } from './upstream-sign-in.js';

async function displayed(deps: AuthorizeDependencies, browser: CookieJar): Promise<string | undefined> {
  const user = deps.session.current(browser);
  return user && deps.displayNameOf(user.sub);
}

/**
 * The two steps of the pipeline (pipeline.ts) that sign in through an upstream identity
 * provider: a "Continue with …" button of the login page, and the provider's callback.
 */

/** POST of a "Continue with …" button: to that provider's sign-in (a provider gone since the page was shown: the page again). */
export async function continueUpstream(form: FormParams, browser: CookieJar, deps: AuthorizeDependencies): Promise<AuthorizeOutcome> {
  const request = await validRequest(submittedParameters(form, browser, deps), deps);
  const provider = form.get('provider');
  if (!deps.upstream || provider === undefined || !deps.upstream.signIns.has(provider))
    return { kind: 'sign-in', request, methods: await methodsOf(deps), signedIn: await displayed(deps, browser) };
  const location = await upstreamLocation(provider, request, demandsOf(request, undefined), browser, deps.session, deps.upstream);
  return { kind: 'upstream', request, location };
}

/**
 * GET of a provider's callback: the sign-in it finishes (recorded by this browser, taken
 * once), then back to step 1 with the request, signed in; a failure at the provider, or a
 * user its access rules refuse, is access_denied at the client.
 */
export async function upstreamCallback(
  providerId: string,
  query: URLSearchParams,
  browser: CookieJar,
  clientAddress: string,
  deps: AuthorizeDependencies,
): Promise<AuthorizeOutcome> {
  const upstream = deps.upstream;
  if (!upstream) throw new InvalidRequest('no identity providers are configured');
  const finished = await upstream.signIns.finish(providerId, query, deps.session.existingBrowserBinding(browser));
  const request = await validRequest(finished.parameters, deps);
  const { events } = deps.responses;
  if (!finished.ok) return { kind: 'denied', request, error: signInFailure(request, finished, events, clientAddress) };
  if (deps.subjects.isDisabled(finished.sub)) {
    const refused = {
      ok: false as const,
      parameters: finished.parameters,
      provider: finished.provider,
      reason: 'refused: the user is disabled',
    };
    return { kind: 'denied', request, error: signInFailure(request, refused, events, clientAddress) };
  }
  const user = await startFederatedSession(finished, request, browser, deps.session, upstream);
  events.emit({
    event: 'login.succeeded',
    provider: finished.provider,
    sub: user.sub,
    clientId: request.client.clientId,
    address: clientAddress,
  });
  return { kind: 'restart', request, signInMark: signInMark(deps.signer, user, request.parameters) };
}

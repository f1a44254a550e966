import { AccessDenied, StoreUnavailableError, TemporarilyUnavailable } from '../errors/index.js';
import type { SecurityEvents } from '../events/types.js';
import type { FinishedSignIn, UpstreamSignIns } from '../identity/sign-ins.js';
import type { UpstreamTokenVault } from '../identity/token-vault.js';
import type { SignInDemands } from '../identity/upstream.js';
import type { AuthenticatedUser, BrowserSession, CookieJar } from '../session/browser-session.js';
import { atClient, type InteractionRequest, isDeviceVerification } from './device-request.js';
import type { SignInReason } from './interaction-policy.js';
import type { AuthorizationRequest } from './request.js';

/**
 * The sign-in step's way through an upstream identity provider (src/identity/): which
 * provider a request goes straight to, what our request asks of the provider's sign-in, and
 * the session a successful callback starts. Nothing of the client's request goes upstream:
 * the provider gets our client id, our redirect URI and its configured scope
 * (src/identity/); from the request only prompt=login and max_age, as a fresh-sign-in demand.
 */

/** The authorization request parameter that names a provider (as Keycloak's kc_idp_hint, Dex's connector_id). */
export const IDP_PARAMETER = 'idp';

export interface UpstreamSignInDependencies {
  readonly signIns: UpstreamSignIns;
  readonly vault: UpstreamTokenVault;
  /** SESSION_TTL, in seconds: how long the session keeps what its sign-in brought. */
  readonly sessionTtlSeconds: number;
  /** Whether USERS_FILE has users (then the password form is offered beside the providers). */
  hasLocalUsers(): boolean;
}

/**
 * The provider a sign-in goes straight to, without the login page: the one `idp` names
 * (an unknown id is only a hint, and the page is shown), or the only provider when there
 * are no local users to sign in with a password.
 */
export function directProvider(
  request: Pick<AuthorizationRequest, 'parameters'>,
  upstream: UpstreamSignInDependencies | undefined,
): string | undefined {
  if (!upstream) return undefined;
  const hinted = request.parameters.find(([name]) => name === IDP_PARAMETER)?.[1];
  if (hinted !== undefined && upstream.signIns.has(hinted)) return hinted;
  const ids = upstream.signIns.ids();
  return ids.length === 1 && !upstream.hasLocalUsers() ? ids[0] : undefined;
}

/**
 * OpenID Connect Core §3.1.2.1: prompt=login and max_age ask the provider for a fresh
 * sign-in too; so does a session of another user than id_token_hint names (the user must be
 * able to choose another account there).
 */
export function demandsOf(
  request: Pick<AuthorizationRequest, 'prompt' | 'maxAge'>,
  reason: SignInReason | 'other_user' | undefined,
): SignInDemands {
  return {
    freshSignIn: request.prompt.has('login') || reason === 'prompt_login' || reason === 'other_user' || request.maxAge === 0,
    ...(request.maxAge !== undefined ? { maxAge: request.maxAge } : {}),
  };
}

/** Where the browser goes to sign in at `providerId`, the sign-in recorded for its callback. */
export async function upstreamLocation(
  providerId: string,
  request: InteractionRequest,
  demands: SignInDemands,
  browser: CookieJar,
  session: BrowserSession,
  upstream: UpstreamSignInDependencies,
): Promise<string> {
  try {
    const url = await upstream.signIns.begin(providerId, request.parameters, demands, session.browserBinding(browser));
    return url.href;
  } catch (err) {
    // Fail closed, at the client: the request is known good.
    if (err instanceof StoreUnavailableError) throw atClient(new TemporarilyUnavailable(undefined, undefined, { cause: err }), request);
    throw err;
  }
}

const FAILED: Record<string, string> = {
  cancelled: 'the user cancelled the sign-in at the identity provider',
  provider_removed: 'the identity provider is no longer configured',
};

/** access_denied for the client (RFC 6749 §4.1.2.1), saying what kind of failure, never the provider's own words. */
export function signInFailure(
  request: InteractionRequest,
  finished: FinishedSignIn & { ok: false },
  events: SecurityEvents,
  address: string,
) {
  events.emit({
    event: 'login.failed',
    provider: finished.provider,
    reason: finished.reason,
    ...(finished.detail !== undefined ? { detail: finished.detail } : {}),
    clientId: request.client.clientId,
    address,
  });
  const description = finished.reason.startsWith('refused')
    ? 'the identity provider signed the user in, but this server does not let that user sign in'
    : (FAILED[finished.reason] ?? 'the sign-in at the identity provider did not succeed');
  // For a device verification, a page: the device is not denied, the user may sign in again.
  const error = new AccessDenied(description);
  return isDeviceVerification(request) ? error : error.redirectingTo(request);
}

/** Starts our session for the user the provider returned, keeping what the session keeps (keep_tokens, end_session). */
export async function startFederatedSession(
  finished: FinishedSignIn & { ok: true },
  request: InteractionRequest,
  browser: CookieJar,
  session: BrowserSession,
  upstream: UpstreamSignInDependencies,
): Promise<AuthenticatedUser> {
  const user = session.start(browser, finished.sub, finished.amr, finished.authTime, finished.roles, finished.provider);
  if (finished.kept !== undefined && user.sid !== undefined) {
    const { sid } = user;
    const kept = finished.kept;
    try {
      await upstream.vault.keepForSession(sid, kept, upstream.sessionTtlSeconds);
    } catch (err) {
      // Fail closed: a session whose upstream tokens were not recorded does not start.
      session.end(browser);
      if (err instanceof StoreUnavailableError) throw atClient(new TemporarilyUnavailable(undefined, undefined, { cause: err }), request);
      throw err;
    }
  }
  return user;
}

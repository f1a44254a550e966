import { type Clock, nowSeconds } from '../clock.js';
import { InvalidRequest, StoreUnavailableError } from '../errors/index.js';
import { isFederatedSubject } from '../identity/federated-subject.js';
import type { Parameters } from '../oauth/form-params.js';
import type { AuthenticatedUser } from '../session/browser-session.js';
import type { Signer } from '../session/signer.js';
import type { UpstreamSignInDependencies } from './upstream-sign-in.js';

/**
 * Sign-out of a user who signed in through an upstream provider: our session ends, what it
 * kept is forgotten, and with the provider's `end_session` the browser goes on to the
 * provider's end_session_endpoint (OpenID Connect RP-Initiated Logout, us as the relying
 * party) with our ID token hint, and comes back to our signed-out URL for that provider,
 * which resumes the sign-out as it was asked of us (the client's post_logout_redirect_uri
 * and state, or the signed-out page). What to resume travels in `state`, signed.
 */

/** How long the provider's sign-out may take before its way back is refused. */
const UPSTREAM_SIGN_OUT_TTL_SECONDS = 900;

interface Resume {
  readonly provider: string;
  /** The sign-out request as it was asked of us. */
  readonly logout: Parameters;
}

export interface UpstreamSignOutDependencies {
  readonly upstream?: UpstreamSignInDependencies | undefined;
  readonly signer: Signer;
  readonly clock: Clock;
}

/** Forgets what the ended session kept; the provider's end-session URL when it asks for one, else undefined. */
export async function upstreamSignOut(
  user: AuthenticatedUser,
  logout: Parameters,
  deps: UpstreamSignOutDependencies,
): Promise<string | undefined> {
  const upstream = deps.upstream;
  if (!upstream || user.sid === undefined || !isFederatedSubject(user.sub)) return undefined;
  const kept = await upstream.vault.forSession(user.sid).catch((err: unknown) => {
    if (err instanceof StoreUnavailableError) return undefined;
    throw err;
  });
  if (!kept) return undefined;
  // Best effort: the session is over, its copy expires with SESSION_TTL anyway.
  await upstream.vault.forgetSession(user.sid).catch(() => undefined);
  const resume: Resume = { provider: kept.provider, logout };
  const state = deps.signer.sign('upstream-sign-out', resume, nowSeconds(deps.clock) + UPSTREAM_SIGN_OUT_TTL_SECONDS);
  return (await upstream.signIns.endSessionUrl(kept.provider, kept.idToken, state))?.href;
}

/** The sign-out request to resume when `providerId` sends the browser back with `state`. */
export function resumedSignOut(providerId: string, state: string | undefined, deps: UpstreamSignOutDependencies): Parameters {
  const resume = deps.signer.verify<Resume>('upstream-sign-out', state, nowSeconds(deps.clock));
  if (!resume || resume.provider !== providerId || !Array.isArray(resume.logout))
    throw new InvalidRequest('this sign-out has expired or was altered: you are signed out here; sign out again to be sure');
  return resume.logout;
}

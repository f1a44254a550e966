import type { AuthenticatedUser } from '../session/browser-session.js';
import type { RememberedConsent } from '../store/types.js';
import type { AuthorizationRequest } from './request.js';

/**
 * Which page, if any, an authorization request needs, given the browser's session and
 * what the user consented to before. Pure: the route reads the session and the store.
 */

/** Why the user must sign in (again), or undefined when the session will do. */
export type SignInReason = 'no_session' | 'prompt_login' | 'max_age';

/**
 * `signedInForThisRequest`: the session was started by a sign-in on this request's own
 * login page, which satisfies prompt=login and any max_age (else they would ask forever).
 */
export function signInNeeded(
  request: Pick<AuthorizationRequest, 'prompt' | 'maxAge'>,
  user: AuthenticatedUser | undefined,
  signedInForThisRequest: boolean,
  now: number,
): SignInReason | undefined {
  if (!user) return 'no_session';
  if (signedInForThisRequest) return undefined;
  // OIDC Core §3.1.2.1, prompt=login: "The Authorization Server SHOULD prompt the End-User for reauthentication."
  if (request.prompt.has('login')) return 'prompt_login';
  // §3.1.2.1, max_age: "If the elapsed time is greater than this value, the OP MUST attempt
  // to actively re-authenticate the End-User." max_age=0 is prompt=login (§3.1.2.1 note).
  if (request.maxAge !== undefined && (request.maxAge === 0 || now - user.authTime > request.maxAge)) return 'max_age';
  return undefined;
}

/**
 * The audiences a consent to `request` approves: the tokens' audiences, so the resources
 * requested, or `defaultAudience` (ACCESS_TOKEN_AUDIENCE) when it names none. The default
 * audience counts as one: consent to a resource does not cover tokens for it.
 */
export function consentedAudiences(request: Pick<AuthorizationRequest, 'resources'>, defaultAudience: string): string[] {
  return request.resources.length > 0 ? request.resources.map((r) => r.resource) : [defaultAudience];
}

/** True when the remembered consent covers every scope and audience requested now (a subset needs no new consent). */
export function consentCovers(
  remembered: RememberedConsent | undefined,
  request: Pick<AuthorizationRequest, 'scope' | 'resources'>,
  defaultAudience: string,
): boolean {
  if (!remembered) return false;
  const scope = new Set(remembered.scope);
  const audiences = new Set(remembered.audiences);
  return request.scope.every((s) => scope.has(s)) && consentedAudiences(request, defaultAudience).every((a) => audiences.has(a));
}

/**
 * Whether `request` is for exactly the audiences of `remembered`: then a request for more
 * scope is a step-up of that consent, which adds to it. Another set of audiences is a new
 * consent that replaces it (a scope approved for one resource never spreads to another).
 */
export function sameAudiences(
  remembered: RememberedConsent,
  request: Pick<AuthorizationRequest, 'resources'>,
  defaultAudience: string,
): boolean {
  const requested = new Set(consentedAudiences(request, defaultAudience));
  return requested.size === new Set(remembered.audiences).size && remembered.audiences.every((a) => requested.has(a));
}

/**
 * Whether the consent page must be shown: always with prompt=consent (OIDC Core §3.1.2.1:
 * "The Authorization Server SHOULD prompt the End-User for consent"), never for a client
 * the operator marked first-party (skip_consent), else unless remembered consent covers it.
 */
export function consentNeeded(
  request: Pick<AuthorizationRequest, 'prompt' | 'client' | 'scope' | 'resources'>,
  remembered: RememberedConsent | undefined,
  defaultAudience: string,
): boolean {
  if (request.prompt.has('consent')) return true;
  if (request.client.skipConsent) return false;
  return !consentCovers(remembered, request, defaultAudience);
}

/** Whether to read the remembered consent at all (the page is shown, or skipped, regardless of it otherwise). */
export function consentMatters(request: Pick<AuthorizationRequest, 'prompt' | 'client'>): boolean {
  return !request.prompt.has('consent') && !request.client.skipConsent;
}

import { isIdentityScope } from '../oauth/identity-scopes.js';
import type { ResourceLookup } from '../resources/indicators.js';
import type { AuthenticatedUser } from '../session/browser-session.js';
import type { ConsentStore, RememberedConsent } from '../store/types.js';
import { consentedAudiences, consentMatters, consentNeeded, sameAudiences } from './interaction-policy.js';
import { type AuthorizationRequest, scopeAlsoAllowed } from './request.js';

/** What the consent step reads of a request (an authorization request, or a device verification). */
export type ConsentRequest = Pick<AuthorizationRequest, 'client' | 'scope' | 'resources' | 'prompt' | 'responseType'>;

/**
 * The consent step: whether the user must approve this request on the consent page, and
 * remembering an approval (CONSENT_TTL) so a later request for no more skips the page.
 *
 * Step-up (the MCP authorization spec's "Scope Challenge Handling"): a client that comes back
 * for more scope than its user approved, for the same audiences, is asked only for the new
 * scopes; the page shows the approved ones as already shared. Once allowed, the code carries
 * the union: the resource scopes approved before that this request could have asked for too
 * (its client's and resources' limits) and the scopes requested; the remembered consent
 * becomes the union of both. A client that re-authorizes with only the challenged scopes
 * thus keeps what it had. Identity scopes (OpenID Connect) are carried only when asked for.
 */

export interface ConsentSettings {
  readonly consents: ConsentStore;
  /** CONSENT_TTL, in seconds; 0: never remembered. */
  readonly consentTtlSeconds: number;
  /** ACCESS_TOKEN_AUDIENCE: the audience of a request that names no resource, consented like one. */
  readonly defaultAudience: string;
}

/** What the consent page asks for, and what an approval grants. */
export interface ConsentQuestion {
  /** The scopes the user approves now: all requested, or in a step-up those not approved before. */
  readonly asked: readonly string[];
  /** In a step-up: the scopes approved before that the code carries too ("already shared"). */
  readonly shared: readonly string[];
  /** What an approval grants: the scopes shared and asked. */
  readonly scope: readonly string[];
}

/** The question after `remembered`: a step-up of it (same audiences), or everything the request asks. */
function questionAfter(
  request: ConsentRequest,
  remembered: RememberedConsent | undefined,
  settings: ConsentSettings,
  resources: ResourceLookup,
): ConsentQuestion {
  if (!remembered || !sameAudiences(remembered, request, settings.defaultAudience)) {
    return { asked: request.scope, shared: [], scope: request.scope };
  }
  const before = new Set(remembered.scope);
  const carried = remembered.scope.filter((s) => !request.scope.includes(s) && !isIdentityScope(s));
  const scope = [...scopeAlsoAllowed(request, carried, resources), ...request.scope];
  return { asked: scope.filter((s) => !before.has(s)), shared: scope.filter((s) => before.has(s)), scope };
}

/** What the consent page must ask, or undefined when no page is needed (reads the remembered consent only when it matters). */
export async function consentQuestion(
  request: ConsentRequest,
  user: AuthenticatedUser,
  settings: ConsentSettings,
  resources: ResourceLookup,
): Promise<ConsentQuestion | undefined> {
  const remembered = consentMatters(request) ? await settings.consents.findConsent(user.sub, request.client.clientId) : undefined;
  if (!consentNeeded(request, remembered, settings.defaultAudience)) return undefined;
  return questionAfter(request, remembered, settings, resources);
}

/**
 * The user allowed: the request as approved (a step-up's union), remembered for its client
 * (a step-up adds to the consent, any other approval replaces it).
 */
export async function approve<R extends ConsentRequest>(
  request: R,
  user: AuthenticatedUser,
  settings: ConsentSettings,
  resources: ResourceLookup,
): Promise<R> {
  const remembering = settings.consentTtlSeconds > 0;
  const remembered =
    remembering && consentMatters(request) ? await settings.consents.findConsent(user.sub, request.client.clientId) : undefined;
  const question = questionAfter(request, remembered, settings, resources);
  if (remembering) {
    const consent =
      remembered && sameAudiences(remembered, request, settings.defaultAudience)
        ? { scope: [...new Set([...remembered.scope, ...question.scope])], audiences: remembered.audiences }
        : { scope: question.scope, audiences: consentedAudiences(request, settings.defaultAudience) };
    await settings.consents.rememberConsent(user.sub, request.client.clientId, consent, settings.consentTtlSeconds);
  }
  return { ...request, scope: question.scope };
}

import type { AuthenticatedUser } from '../session/browser-session.js';
import type { ConsentStore } from '../store/types.js';
import { consentedAudiences, consentMatters, consentNeeded } from './interaction-policy.js';
import type { AuthorizationRequest } from './request.js';

/**
 * The consent step: whether the user must approve this request on the consent page, and
 * remembering an approval (CONSENT_TTL) so a later request for no more skips the page.
 */

export interface ConsentSettings {
  readonly consents: ConsentStore;
  /** CONSENT_TTL, in seconds; 0: never remembered. */
  readonly consentTtlSeconds: number;
  /** ACCESS_TOKEN_AUDIENCE: the audience of a request that names no resource, consented like one. */
  readonly defaultAudience: string;
}

/** Whether the consent page must be shown (reads the remembered consent only when it matters). */
export async function consentPageNeeded(
  request: AuthorizationRequest,
  user: AuthenticatedUser,
  settings: ConsentSettings,
): Promise<boolean> {
  const remembered = consentMatters(request) ? await settings.consents.findConsent(user.sub, request.client.clientId) : undefined;
  return consentNeeded(request, remembered, settings.defaultAudience);
}

/** Remembers that the user approved this request's scopes and audiences for its client. */
export async function rememberApproval(request: AuthorizationRequest, user: AuthenticatedUser, settings: ConsentSettings): Promise<void> {
  if (settings.consentTtlSeconds <= 0) return;
  const consent = { scope: request.scope, audiences: consentedAudiences(request, settings.defaultAudience) };
  await settings.consents.rememberConsent(user.sub, request.client.clientId, consent, settings.consentTtlSeconds);
}

import type { ProviderConfig } from './providers.js';
import type { UpstreamIdentity } from './upstream.js';

/**
 * Who may sign in through a provider, checked once it said who the user is and before any
 * consent: `allowed_email_domains` (only a verified email counts: an unverified one is the
 * user's own claim), `required_claims` (a value, or one of a list, found in a string or an
 * array claim), and for GitHub `allowed_organizations`. Pure.
 */

export type AccessDecision = { readonly allowed: true } | { readonly allowed: false; readonly reason: string };

const ALLOWED: AccessDecision = { allowed: true };

function emailDomainAllowed(identity: RuledIdentity, domains: readonly string[]): AccessDecision {
  const email = identity.profile.email;
  if (typeof email !== 'string' || identity.profile.email_verified !== true) return { allowed: false, reason: 'no verified email' };
  const domain = email.slice(email.lastIndexOf('@') + 1).toLowerCase();
  return domains.some((allowed) => allowed.toLowerCase() === domain) ? ALLOWED : { allowed: false, reason: 'email domain not allowed' };
}

/** Whether claim `value` holds one of `wanted`: equal to a string claim, or among the strings of an array claim. */
function claimHolds(value: unknown, wanted: readonly string[]): boolean {
  if (typeof value === 'string') return wanted.includes(value);
  if (Array.isArray(value)) return value.some((item) => typeof item === 'string' && wanted.includes(item));
  return false;
}

/** What the rules read of a user: a sign-in's identity, or the claims of an ID-JAG. */
export type RuledIdentity = Pick<UpstreamIdentity, 'profile' | 'claims' | 'organizations'>;

export function accessDecision(config: ProviderConfig, identity: RuledIdentity): AccessDecision {
  if (config.allowed_email_domains !== undefined) {
    const decision = emailDomainAllowed(identity, config.allowed_email_domains);
    if (!decision.allowed) return decision;
  }
  if (config.type === 'oidc' && config.required_claims !== undefined) {
    for (const [claim, wanted] of Object.entries(config.required_claims)) {
      if (!claimHolds(identity.claims[claim], typeof wanted === 'string' ? [wanted] : wanted))
        return { allowed: false, reason: `required claim ${claim} missing` };
    }
  }
  if (config.type === 'github' && config.allowed_organizations !== undefined) {
    const member = (identity.organizations ?? []).map((org) => org.toLowerCase());
    if (!config.allowed_organizations.some((org) => member.includes(org.toLowerCase())))
      return { allowed: false, reason: 'not a member of an allowed organization' };
  }
  return ALLOWED;
}

import type { ProviderConfig } from './providers.js';
import type { UpstreamIdentity } from './upstream.js';

/**
 * Who may sign in through a provider, checked once it said who the user is and before any
 * consent: `allowed_email_domains` (only a verified email counts: an unverified one is the
 * user's own claim), `required_claims` (a value, or one of a list, found in a string or an
 * array claim), and for GitHub `allowed_organizations`; and the roles a user gets (`roles`,
 * a required_claims rule per role). Pure.
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

/** A required_claims rule: each claim must hold one of its values. */
type ClaimsRule = Readonly<Record<string, string | readonly string[]>>;

/** The first claim of `rule` that `claims` do not hold, or undefined when they hold them all. */
function unmetClaim(rule: ClaimsRule, claims: Readonly<Record<string, unknown>>): string | undefined {
  return Object.entries(rule).find(([claim, wanted]) => !claimHolds(claims[claim], typeof wanted === 'string' ? [wanted] : wanted))?.[0];
}

export function accessDecision(config: ProviderConfig, identity: RuledIdentity): AccessDecision {
  if (config.allowed_email_domains !== undefined) {
    const decision = emailDomainAllowed(identity, config.allowed_email_domains);
    if (!decision.allowed) return decision;
  }
  if (config.type === 'oidc' && config.required_claims !== undefined) {
    const claim = unmetClaim(config.required_claims, identity.claims);
    if (claim !== undefined) return { allowed: false, reason: `required claim ${claim} missing` };
  }
  if (config.type === 'github' && config.allowed_organizations !== undefined) {
    const member = (identity.organizations ?? []).map((org) => org.toLowerCase());
    if (!config.allowed_organizations.some((org) => member.includes(org.toLowerCase())))
      return { allowed: false, reason: 'not a member of an allowed organization' };
  }
  return ALLOWED;
}

/** The roles the provider's `roles` rules give this user (a required_claims rule per role), decided at sign-in. */
export function rolesOf(config: ProviderConfig, identity: Pick<RuledIdentity, 'claims'>): string[] {
  return Object.entries(config.roles ?? {})
    .filter(([, rule]) => rule !== undefined && unmetClaim(rule, identity.claims) === undefined)
    .map(([role]) => role);
}

import type { StandardClaimName } from '../users/claims.js';

export type { AddressClaim, ClaimType, StandardClaimName, StandardClaims } from '../users/claims.js';

/**
 * Which of a user's claims a client gets, by the scopes it was granted (OpenID Connect
 * Core 1.0 §5.4), and the scopes OpenID Connect defines. Pure. The claims themselves, their
 * types and their validation live with the users (src/users/claims.ts), as USERS_FILE is
 * validated below this layer.
 */

/** The scopes OpenID Connect defines: `openid` (§3.1.2.1), the claim scopes (§5.4), `offline_access` (§11). */
export { IDENTITY_SCOPES, type IdentityScope, isIdentityScope } from '../oauth/identity-scopes.js';

/** §5.4: the claims each scope requests, in the order of the specification. */
export const SCOPE_CLAIMS = Object.freeze({
  profile: Object.freeze([
    'name',
    'family_name',
    'given_name',
    'middle_name',
    'nickname',
    'preferred_username',
    'profile',
    'picture',
    'website',
    'gender',
    'birthdate',
    'zoneinfo',
    'locale',
    'updated_at',
  ] as const),
  email: Object.freeze(['email', 'email_verified'] as const),
  address: Object.freeze(['address'] as const),
  phone: Object.freeze(['phone_number', 'phone_number_verified'] as const),
}) satisfies Readonly<Record<string, readonly StandardClaimName[]>>;

export type ClaimScope = keyof typeof SCOPE_CLAIMS;

/**
 * The claims of `claims` that `scopes` release (§5.4), in the order of SCOPE_CLAIMS; claims
 * the user does not have are left out (§5.3.2: "If a Claim is not returned, that Claim Name
 * SHOULD be omitted"). `sub` is not among them: the caller adds it, always. Whether the
 * request was an OpenID request (`openid` granted) is the caller's to check.
 */
export function claimsForScopes(claims: Readonly<Record<string, unknown>>, scopes: Iterable<string>): Record<string, unknown> {
  const granted = new Set(scopes);
  const released: Record<string, unknown> = {};
  for (const [scope, names] of Object.entries(SCOPE_CLAIMS)) {
    if (!granted.has(scope)) continue;
    for (const name of names) {
      if (Object.hasOwn(claims, name) && claims[name] !== undefined) released[name] = claims[name];
    }
  }
  return released;
}

/**
 * The profile of a federated user: the standard claims (OpenID Connect Core §5.1) we map
 * from what the upstream said, served by userinfo exactly as a local user's (the scopes
 * granted decide which a client gets, src/oidc/claims.ts). Only well-typed values pass:
 * an upstream's odd value is dropped, never passed on as it came.
 */

export const PROFILE_CLAIMS = ['email', 'email_verified', 'name', 'preferred_username', 'picture'] as const;
export type ProfileClaim = (typeof PROFILE_CLAIMS)[number];

const MAX_LENGTH = 2048;

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' && value.length <= MAX_LENGTH ? value : undefined;
}

/** §5.1 email_verified is a boolean; some providers (Amazon Cognito) send the string "true". */
function flag(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  if (value === 'true' || value === 'false') return value === 'true';
  return undefined;
}

function https(value: unknown): string | undefined {
  const url = text(value);
  return url !== undefined && URL.canParse(url) && new URL(url).protocol === 'https:' ? url : undefined;
}

/** The mapped claims present in `claims`, well-typed; `email_verified` only beside an email. */
export function profileOf(claims: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const profile: Record<string, unknown> = {};
  const email = text(claims.email);
  if (email !== undefined && email.includes('@')) {
    profile.email = email;
    profile.email_verified = flag(claims.email_verified) ?? false;
  }
  const name = text(claims.name);
  if (name !== undefined) profile.name = name;
  const username = text(claims.preferred_username);
  if (username !== undefined) profile.preferred_username = username;
  const picture = https(claims.picture);
  if (picture !== undefined) profile.picture = picture;
  return profile;
}

/** Whether `claims` lack any mapped claim (then the provider's userinfo is asked). */
export function lacksProfileClaims(claims: Readonly<Record<string, unknown>>): boolean {
  return PROFILE_CLAIMS.some((claim) => claims[claim] === undefined);
}

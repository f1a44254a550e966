/**
 * The scopes of OpenID Connect Core 1.0: `openid` (§3.1.2.1: the request is an OpenID
 * Connect request), `profile`, `email`, `address` and `phone` (§5.4: which claims userinfo
 * releases), and `offline_access` (§11). They name what the user shares about themselves,
 * not access to a protected resource: they are never checked against RESOURCES_FILE and
 * are available to every client that may use the authorization endpoint.
 */
export const IDENTITY_SCOPES = ['openid', 'profile', 'email', 'address', 'phone', 'offline_access'] as const;

export type IdentityScope = (typeof IDENTITY_SCOPES)[number];

const IDENTITY = new Set<string>(IDENTITY_SCOPES);

export function isIdentityScope(scope: string): scope is IdentityScope {
  return IDENTITY.has(scope);
}

/** The scopes of a request split into the identity scopes and the others (each in order). */
export function splitIdentityScopes(scope: readonly string[]): { identity: string[]; resource: string[] } {
  return { identity: scope.filter(isIdentityScope), resource: scope.filter((token) => !isIdentityScope(token)) };
}

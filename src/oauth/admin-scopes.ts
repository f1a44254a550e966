/**
 * The scopes of the admin API (`{ISSUER}/admin/v1`, a protected resource every server has):
 * `admin:read` for its reads, `admin:write` for its changes. Only the admin API offers them,
 * only a client whose registered `scope` lists them may get them, and only for a person
 * with the role `admin` (src/users/roles.ts) or for the client itself (client_credentials).
 */
export const ADMIN_READ = 'admin:read';
export const ADMIN_WRITE = 'admin:write';
export const ADMIN_SCOPES: readonly string[] = [ADMIN_READ, ADMIN_WRITE];

export type AdminScope = typeof ADMIN_READ | typeof ADMIN_WRITE;

export function isAdminScope(scope: string): boolean {
  return scope === ADMIN_READ || scope === ADMIN_WRITE;
}

/** `scope` without the admin scopes, in order. */
export function withoutAdminScopes(scope: readonly string[]): string[] {
  return scope.filter((token) => !isAdminScope(token));
}

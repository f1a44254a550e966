import { isAdminScope } from '../oauth/admin-scopes.js';
import { FEDERATED_PREFIX } from '../shared/federated-prefix.js';

/**
 * Roles decide which scopes a person may be granted beyond what a client may ask for. One
 * role exists: `admin`, without which nobody is granted the admin API's scopes, whatever
 * the client asks. A local user holds it by USERS_FILE (`"roles": ["admin"]`), read at every
 * decision; a federated user by their provider's `roles` rules, decided at sign-in and
 * carried in the browser session (or, for an ID-JAG, decided on its claims).
 *
 * The admin scopes a user may not have are dropped from the grant, not refused: RFC 6749
 * §3.3, "The authorization server MAY fully or partially ignore the scope requested by the
 * client, based on the authorization server policy or the resource owner's instructions",
 * and the token response then names the scope granted. The authorization endpoint learns
 * who the user is only after the request was validated, so narrowing is the one answer
 * every grant can give alike.
 */

export const ADMIN_ROLE = 'admin';

/** The users whose roles are read now (USERS_FILE). */
export interface RoleHolders {
  bySub(sub: string): { readonly roles: readonly string[] } | undefined;
}

/** Who a new authorization is for: the user, the client's registered scope, and the roles a federated sign-in decided. */
export interface ScopeHolder {
  readonly sub: string;
  readonly clientScope: readonly string[];
  /** The roles decided at a federated sign-in (or on an ID-JAG); undefined for a local user's, which USERS_FILE holds. */
  readonly decidedRoles?: readonly string[] | undefined;
}

function holdsAdminRole(holder: ScopeHolder, users: RoleHolders): boolean {
  const roles = users.bySub(holder.sub)?.roles ?? holder.decidedRoles ?? [];
  return roles.includes(ADMIN_ROLE);
}

/**
 * The scope a new authorization of a user may carry: the admin scopes only for a user with
 * the role `admin`, and only those the client's registered `scope` lists (a client
 * registered without scope, one describing itself, never gets them).
 */
export function scopeForUser(scope: readonly string[], holder: ScopeHolder, users: RoleHolders): readonly string[] {
  if (!scope.some(isAdminScope)) return scope;
  const admin = holdsAdminRole(holder, users);
  return scope.filter((token) => !isAdminScope(token) || (admin && holder.clientScope.includes(token)));
}

/**
 * The scope an existing grant still carries (refresh, token exchange): its admin scopes go
 * once its local user no longer holds the role, or is gone from USERS_FILE. A federated
 * user keeps what the sign-in decided; a client's own token (`sub` is its client id) what
 * its registration allows.
 */
export function scopeStillHeld(
  scope: readonly string[],
  grant: { readonly sub: string; readonly clientId: string },
  users: RoleHolders,
): readonly string[] {
  if (!scope.some(isAdminScope) || grant.sub === grant.clientId || grant.sub.startsWith(FEDERATED_PREFIX)) return scope;
  return users.bySub(grant.sub)?.roles.includes(ADMIN_ROLE) ? scope : scope.filter((token) => !isAdminScope(token));
}

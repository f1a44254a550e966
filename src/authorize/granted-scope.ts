import type { AuthenticatedUser } from '../session/browser-session.js';
import { type RoleHolders, scopeForUser } from '../users/roles.js';
import type { InteractionRequest } from './device-request.js';

/**
 * The request (or device verification) as `user` may be granted it: the admin API's scopes
 * only for an admin (src/users/roles.ts); anything else unchanged.
 */
export function forUser<R extends InteractionRequest>(request: R, user: AuthenticatedUser, users: RoleHolders): R {
  const holder = { sub: user.sub, clientScope: request.client.scope, decidedRoles: user.roles };
  const scope = scopeForUser(request.scope, holder, users);
  return scope === request.scope ? request : { ...request, scope };
}

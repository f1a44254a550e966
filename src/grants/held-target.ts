import {
  type AccessTarget,
  type GrantedTarget,
  narrowGrantTarget,
  type ResourceLookup,
  type TargetRequest,
} from '../resources/indicators.js';
import { type RoleHolders, scopeStillHeld } from '../users/roles.js';

/**
 * The target of a token from an existing grant (code, refresh token): RFC 6749 §6's and RFC
 * 8707's narrowing, then the admin scopes only while the grant's user still holds the role.
 */
export function heldTarget(
  request: TargetRequest,
  grant: GrantedTarget & { readonly sub: string; readonly clientId: string },
  deps: { readonly resources: ResourceLookup; readonly users: RoleHolders },
): AccessTarget {
  const target = narrowGrantTarget(request, grant, deps.resources);
  return { ...target, scope: scopeStillHeld(target.scope, grant, deps.users) };
}

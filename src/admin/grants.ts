import type { SecurityEvents } from '../events/types.js';
import { type GrantAdministrationDependencies, liveGrants, revokeGrantById } from '../grants/administration.js';
import type { GrantOwner, IndexedGrant } from '../store/types.js';
import { type AdminActor, recordAdminChange } from './audit.js';
import { type Page, pageOf } from './paging.js';
import { AdminProblem } from './problems.js';

/**
 * Grants through the admin API: what `grants list` and `grants revoke <id>` do (the same
 * domain code, src/grants/administration.ts), paged, with an audit event per revocation.
 */

export interface AdminGrantsDependencies extends GrantAdministrationDependencies {
  readonly events: SecurityEvents;
}

/** A grant as the API shows it; `expires_at` in seconds since the epoch. */
export interface GrantView {
  readonly grant_id: string;
  readonly sub: string;
  readonly client_id: string;
  readonly expires_at: number;
  /** What it grants and when it was granted (seconds); absent for a grant indexed before the index kept them. */
  readonly scope?: readonly string[];
  readonly resources?: readonly string[];
  readonly granted_at?: number;
}

export interface GrantFilter {
  readonly sub?: string | undefined;
  readonly clientId?: string | undefined;
}

function viewOf(grant: IndexedGrant): GrantView {
  const { details } = grant;
  return {
    grant_id: grant.grantId,
    sub: grant.sub,
    client_id: grant.clientId,
    expires_at: Math.ceil(grant.expiresAt / 1000),
    ...(details ? { scope: details.scope, resources: details.resources, granted_at: details.grantedAt } : {}),
  };
}

/**
 * The live grants of a user (`sub`), of a client, or of a user at a client (both), soonest
 * expiry first. Grants are indexed by user and by client only: one of the two is required.
 */
export async function listGrants(
  filter: GrantFilter,
  page: { readonly limit: number; readonly cursor?: string | undefined },
  deps: GrantAdministrationDependencies,
): Promise<Page<GrantView>> {
  const owner: GrantOwner | undefined =
    filter.sub !== undefined ? { sub: filter.sub } : filter.clientId !== undefined ? { clientId: filter.clientId } : undefined;
  if (!owner)
    throw new AdminProblem('validation', 'grants are listed by user or by client: give sub, client_id, or both', {
      errors: [{ field: 'sub', problem: 'give sub or client_id' }],
    });
  const grants = (await liveGrants(owner, deps))
    .filter((grant) => filter.clientId === undefined || grant.clientId === filter.clientId)
    .map(viewOf)
    .sort((a, b) => a.expires_at - b.expires_at || (a.grant_id < b.grant_id ? -1 : a.grant_id > b.grant_id ? 1 : 0));
  return pageOf(grants, (grant) => [grant.expires_at, grant.grant_id], page);
}

/**
 * Revokes one grant (its refresh tokens stop at once, introspection reports its access
 * tokens inactive), as `grants revoke <id>`; a grant the store does not know is not-found.
 */
export async function revokeGrant(grantId: string, actor: AdminActor, deps: AdminGrantsDependencies): Promise<void> {
  if (!(await revokeGrantById(grantId, deps)))
    throw new AdminProblem('not-found', 'no such grant: never issued, expired, or not a grant id');
  deps.events.emit({ event: 'grant.revoked', grantId, reason: 'administrator' });
  recordAdminChange(deps.events, { actor, entity: 'grant', id: grantId, action: 'revoked' });
}

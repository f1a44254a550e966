import type { AdminAction, AdminActor, AdminEntity, SecurityEvents } from '../events/types.js';

export type { AdminAction, AdminActor, AdminEntity } from '../events/types.js';

/**
 * The audit trail of the admin API: every change is one `admin.changed` event (the audit
 * log's line, and `oauth2_admin_changes_total{entity,action}`), naming who (the token's
 * user, or the client acting for itself), what (entity, id), the action, and the names of
 * the fields changed, never their values: a secret or a password is "client_secret"
 * or "password", nothing more.
 */

/** The caller of the admin API, from its access token: a person (`sub`), or a client acting for itself (client_credentials). */
export function actorOf(claims: { readonly sub: string; readonly client_id: string }): AdminActor {
  return claims.sub === claims.client_id ? { client_id: claims.client_id } : { sub: claims.sub };
}

export interface AdminChange {
  readonly actor: AdminActor;
  readonly entity: AdminEntity;
  readonly id: string;
  readonly action: AdminAction;
  /** The names of the fields written (top level), sorted; never a value. */
  readonly fields?: readonly string[];
}

/** Reports one change. */
export function recordAdminChange(events: SecurityEvents, change: AdminChange): void {
  events.emit({
    event: 'admin.changed',
    actor: change.actor,
    entity: change.entity,
    id: change.id,
    action: change.action,
    fields: [...new Set(change.fields ?? [])].sort(),
  });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The top-level fields whose value differs between two documents (added, removed or
 * changed), sorted: what a PUT or PATCH wrote. Names only.
 */
export function changedFields(before: unknown, after: unknown): string[] {
  if (!isObject(before) || !isObject(after)) return [];
  const names = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...names].filter((name) => JSON.stringify(before[name]) !== JSON.stringify(after[name])).sort();
}

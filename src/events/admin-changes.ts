/** What the `admin.changed` event says of a change made through the admin API (src/events/types.ts). */

/** Who changed something through the admin API: a person (their `sub`), or a client acting for itself. */
export type AdminActor = { readonly sub: string } | { readonly client_id: string };

/** What the admin API changes. */
export type AdminEntity = 'client' | 'resource' | 'provider' | 'workload_trust' | 'user' | 'grant';

/** How: `updated` is a merge patch, `replaced` a PUT; `secret_rotated` and `password_set` name no value. */
export type AdminAction =
  'created' | 'replaced' | 'updated' | 'deleted' | 'revoked' | 'disabled' | 'enabled' | 'secret_rotated' | 'password_set';

import type { Clock } from '../clock.js';
import type { ConsentStore, GrantIndex, GrantOwner, GrantRevocation, IndexedGrant, KnownGrantRevocation } from '../store/types.js';
import { isGrantId } from '../tokens/opaque.js';

/**
 * Grant administration (the `grants` commands): the live grants of a user or a client,
 * and their revocation. Revoking a grant marks it revoked in its own hash slot: its
 * refresh tokens stop working, and introspection reports its access tokens (which carry
 * its `grant_id`) inactive.
 */

export interface GrantAdministrationDependencies {
  readonly index: GrantIndex;
  readonly revocation: GrantRevocation & KnownGrantRevocation;
  readonly consents: ConsentStore;
  /** The least time a revocation mark is kept: as long as any grant can live (a refresh family, or a code and its access token). */
  readonly revocationMarkSeconds: number;
  readonly clock: Clock;
}

/** The unexpired, unrevoked grants of a user or client; revoked ones found on the way leave the index. */
export async function liveGrants(owner: GrantOwner, deps: GrantAdministrationDependencies): Promise<IndexedGrant[]> {
  const indexed = await deps.index.listGrants(owner);
  const revoked = await Promise.all(indexed.map((grant) => deps.revocation.isGrantRevoked(grant.grantId)));
  const stale = indexed.filter((_, i) => revoked[i]);
  if (stale.length > 0) await deps.index.unindexGrants(stale);
  return indexed.filter((_, i) => !revoked[i]);
}

/**
 * Revokes one grant by id, when the store knows it (indexed and unexpired, or with a refresh
 * family or revocation mark); the user's consent stays. Resolves false for any other id,
 * having written nothing: one not of newGrantId's form without asking the store.
 */
export async function revokeGrantById(grantId: string, deps: GrantAdministrationDependencies): Promise<boolean> {
  if (!isGrantId(grantId)) return false;
  return deps.revocation.revokeKnownGrant(grantId, deps.revocationMarkSeconds);
}

/**
 * Revokes every live grant of a user or a client and forgets the consent behind them, so
 * the next authorization asks again: the user's consent to every client (`--sub`), or every
 * user's consent to the client (`--client`), whether or not a live grant is left (a grant
 * revoked at /oauth2/revoke, or expired, leaves the consent). Returns the grants revoked.
 */
export async function revokeGrantsOf(owner: GrantOwner, deps: GrantAdministrationDependencies): Promise<IndexedGrant[]> {
  const grants = await liveGrants(owner, deps);
  const now = deps.clock();
  for (const grant of grants) {
    const left = Math.ceil((grant.expiresAt - now) / 1000);
    await deps.revocation.revokeGrant(grant.grantId, Math.max(deps.revocationMarkSeconds, left));
  }
  if ('sub' in owner) await deps.consents.forgetConsent(owner.sub);
  else await deps.consents.forgetConsentsToClient(owner.clientId);
  // Only after every mark is recorded: a failure part-way leaves the rest listed, to revoke again.
  await deps.index.unindexGrants(grants);
  return grants;
}

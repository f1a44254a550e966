import type { Clock } from '../clock.js';
import type { ConsentStore, GrantIndex, GrantOwner, IndexedGrant, RememberedConsent } from './types.js';

/** The key of one index: a user's or a client's (the prefixes keep a sub and a client id apart). */
function indexKey(owner: GrantOwner): string {
  return 'sub' in owner ? `sub:${owner.sub}` : `client:${owner.clientId}`;
}

/**
 * Grant indexes in memory: each operation is one synchronous step. Expired entries are
 * dropped when an index is read or written, and an empty index is deleted, so memory
 * follows the live grants.
 */
export class MemoryGrantIndex implements GrantIndex {
  private readonly indexes = new Map<string, Map<string, IndexedGrant>>();
  /** Every indexed grant by id, until its latest expiry: what `revokeKnownGrant` asks. */
  private readonly known = new Map<string, number>();

  constructor(private readonly clock: Clock) {}

  async indexGrant(grant: IndexedGrant): Promise<void> {
    for (const key of [indexKey({ sub: grant.sub }), indexKey({ clientId: grant.clientId })]) {
      const index = this.live(key) ?? new Map<string, IndexedGrant>();
      const known = index.get(grant.grantId);
      if (!known || known.expiresAt < grant.expiresAt) index.set(grant.grantId, { ...grant });
      this.indexes.set(key, index);
    }
    this.known.set(grant.grantId, Math.max(this.known.get(grant.grantId) ?? 0, grant.expiresAt));
  }

  /** Whether the grant was indexed and has not expired (unindexing does not forget it: only its expiry). */
  knows(grantId: string): boolean {
    return (this.known.get(grantId) ?? 0) > this.clock();
  }

  async listGrants(owner: GrantOwner): Promise<IndexedGrant[]> {
    const index = this.live(indexKey(owner));
    return index ? [...index.values()].sort((a, b) => a.expiresAt - b.expiresAt) : [];
  }

  async countGrants(owner: GrantOwner): Promise<number> {
    return this.live(indexKey(owner))?.size ?? 0;
  }

  async unindexGrants(grants: readonly IndexedGrant[]): Promise<void> {
    for (const grant of grants) {
      for (const key of [indexKey({ sub: grant.sub }), indexKey({ clientId: grant.clientId })]) {
        const index = this.indexes.get(key);
        index?.delete(grant.grantId);
        if (index?.size === 0) this.indexes.delete(key);
      }
    }
  }

  /** Periodic sweep: drops expired entries of every index. */
  sweep(): void {
    for (const key of [...this.indexes.keys()]) this.live(key);
    const now = this.clock();
    for (const [grantId, expiresAt] of this.known) if (expiresAt <= now) this.known.delete(grantId);
  }

  clear(): void {
    this.indexes.clear();
    this.known.clear();
  }

  private live(key: string): Map<string, IndexedGrant> | undefined {
    const index = this.indexes.get(key);
    if (!index) return undefined;
    const now = this.clock();
    for (const [grantId, grant] of index) if (grant.expiresAt <= now) index.delete(grantId);
    if (index.size === 0) {
      this.indexes.delete(key);
      return undefined;
    }
    return index;
  }
}

interface ConsentEntry {
  readonly consent: RememberedConsent;
  readonly expiresAt: number;
}

/** Remembered consent in memory, per user, then per client. */
export class MemoryConsents implements ConsentStore {
  private readonly byUser = new Map<string, Map<string, ConsentEntry>>();

  constructor(private readonly clock: Clock) {}

  async rememberConsent(sub: string, clientId: string, consent: RememberedConsent, ttlSeconds: number): Promise<void> {
    const clients = this.byUser.get(sub) ?? new Map<string, ConsentEntry>();
    clients.set(clientId, {
      consent: { scope: [...consent.scope], audiences: [...consent.audiences] },
      expiresAt: this.clock() + ttlSeconds * 1000,
    });
    this.byUser.set(sub, clients);
  }

  async findConsent(sub: string, clientId: string): Promise<RememberedConsent | undefined> {
    const entry = this.byUser.get(sub)?.get(clientId);
    if (!entry) return undefined;
    if (entry.expiresAt > this.clock()) return entry.consent;
    await this.forgetConsent(sub, clientId);
    return undefined;
  }

  async forgetConsent(sub: string, clientId?: string): Promise<void> {
    const clients = this.byUser.get(sub);
    if (clientId !== undefined) clients?.delete(clientId);
    if (clientId === undefined || clients?.size === 0) this.byUser.delete(sub);
  }

  async forgetConsentsToClient(clientId: string): Promise<void> {
    for (const sub of [...this.byUser.keys()]) await this.forgetConsent(sub, clientId);
  }

  sweep(): void {
    const now = this.clock();
    for (const [sub, clients] of this.byUser) {
      for (const [clientId, entry] of clients) if (entry.expiresAt <= now) clients.delete(clientId);
      if (clients.size === 0) this.byUser.delete(sub);
    }
  }

  clear(): void {
    this.byUser.clear();
  }
}

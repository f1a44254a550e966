import type { Clock } from '../clock.js';
import { type Expiring, ExpiringMap } from './expiring-map.js';
import { clientAssertionKey, dpopProofKey } from './replay-keys.js';
import type { ClientAssertionReplayCache, DpopProofReplayCache } from './types.js';

/**
 * The replay caches of the memory store: DPoP proofs and client assertions seen, by kind,
 * scope and jti digest, each until its window ends. Each check-and-record is synchronous,
 * so atomic, as Redis's SET NX PX is.
 */
export class MemoryReplays implements DpopProofReplayCache, ClientAssertionReplayCache {
  readonly seen: ExpiringMap<Expiring>;

  constructor(private readonly clock: Clock) {
    this.seen = new ExpiringMap(clock);
  }

  async rememberDpopProof(jkt: string, jti: string, ttlSeconds: number): Promise<boolean> {
    return this.rememberOnce(`dpop:${dpopProofKey(jkt, jti).join(':')}`, ttlSeconds);
  }

  async rememberClientAssertion(clientId: string, jti: string, ttlSeconds: number): Promise<boolean> {
    return this.rememberOnce(`assertion:${clientAssertionKey(clientId, jti).join(':')}`, ttlSeconds);
  }

  private rememberOnce(key: string, ttlSeconds: number): boolean {
    if (this.seen.get(key)) return false;
    this.seen.set(key, { expiresAt: this.clock() + ttlSeconds * 1000 });
    return true;
  }
}

import { hash } from 'node:crypto';
import { ReplayCacheUnavailableError } from './errors.js';

/**
 * Where a resource server remembers the DPoP proofs it accepted (RFC 9449 §11.1: "the
 * server MUST ensure that the same DPoP proof is not used more than once"). Resource
 * servers with several instances share one (Redis); one process can use the memory default.
 */
export interface DpopReplayCache {
  /**
   * In one atomic step: true the first time (`jkt`, `jti`) is seen, remembering it for
   * `ttlSeconds`; false for a replay. A cache that cannot answer rejects: the request is
   * refused (the verifier reports it as ReplayCacheUnavailableError).
   */
  rememberProof(jkt: string, jti: string, ttlSeconds: number): Promise<boolean>;
}

function digestOf(jti: string): string {
  return hash('sha256', jti, 'base64url');
}

/**
 * One process's proofs, in memory, bounded: past `maxEntries` unexpired proofs, new ones
 * are refused (a flood of proofs must not grow the process without end).
 */
export function memoryReplayCache(options: { readonly maxEntries?: number; readonly clock?: () => number } = {}): DpopReplayCache {
  const maxEntries = options.maxEntries ?? 100_000;
  const clock = options.clock ?? Date.now;
  const seen = new Map<string, number>();
  const sweep = (now: number) => {
    for (const [key, expiresAt] of seen) if (expiresAt <= now) seen.delete(key);
  };
  return {
    async rememberProof(jkt, jti, ttlSeconds) {
      const now = clock();
      const key = `${jkt}:${digestOf(jti)}`;
      const expiresAt = seen.get(key);
      if (expiresAt !== undefined && expiresAt > now) return false;
      if (seen.size >= maxEntries) sweep(now);
      if (seen.size >= maxEntries) throw new ReplayCacheUnavailableError();
      seen.set(key, now + ttlSeconds * 1000);
      return true;
    },
  };
}

/** What the Redis adapter needs of a client: ioredis (standalone or Cluster) fits, and so does any look-alike. */
export interface RedisSetNx {
  set(key: string, value: string, px: 'PX', milliseconds: number, nx: 'NX'): Promise<string | null>;
}

/**
 * Proofs in Redis, shared by every instance of a resource server: one `SET key 1 PX ttl NX`
 * per proof, so a check and its record cannot be split by a concurrent replay. Keys are
 * `<prefix>{<jkt>}:<sha256(jti)>`: hash-tagged by the proof key (Redis Cluster), never the
 * raw `jti`, and every key expires. The verifier never imports ioredis: pass your client.
 */
export function redisReplayCache(client: RedisSetNx, options: { readonly keyPrefix?: string } = {}): DpopReplayCache {
  const prefix = options.keyPrefix ?? 'dpop-proof:';
  return {
    async rememberProof(jkt, jti, ttlSeconds) {
      const reply = await client.set(`${prefix}{${jkt}}:${digestOf(jti)}`, '1', 'PX', Math.max(1, ttlSeconds) * 1000, 'NX');
      return reply === 'OK';
    },
  };
}

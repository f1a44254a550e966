import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import { MemoryStore } from './memory.js';
import { RedisStore } from './redis.js';
import type { Store } from './types.js';

/** The store the configuration names: Redis (standalone, Cluster, Sentinel) when REDIS_* is set, else in memory. */
export function storeOf(config: Config, clock?: Clock): MemoryStore | RedisStore {
  if (!config.redis) return new MemoryStore(clock);
  const { topology, tls, username, password, replicaAck } = config.redis;
  return new RedisStore({
    connection: { topology, tls, username, password, commandTimeoutMs: config.redisCommandTimeoutMs },
    keyPrefix: config.redisKeyPrefix,
    replicaAck,
    ...(clock ? { clock } : {}),
  });
}

/** Opens the configured store: a Redis store is connected (rejects with StoreUnavailableError when Redis cannot be reached). */
export async function openStore(config: Config, clock?: Clock): Promise<Store> {
  const store = storeOf(config, clock);
  if (store instanceof RedisStore) await store.connect();
  return store;
}

import type { Clock } from '../clock.js';
import type { Config } from '../config/index.js';
import { MemoryStore } from './memory.js';
import { RedisStore } from './redis.js';
import type { Store, StoreCommandObserver } from './types.js';

export interface StoreOptions {
  readonly clock?: Clock | undefined;
  /** Told of every Redis operation's duration and outcome (metrics). */
  readonly observer?: StoreCommandObserver | undefined;
}

/** The store the configuration names: Redis (standalone, Cluster, Sentinel) when REDIS_* is set, else in memory. */
export function storeOf(config: Config, options: StoreOptions = {}): MemoryStore | RedisStore {
  if (!config.redis) return new MemoryStore(options.clock);
  const { topology, tls, username, password, replicaAck } = config.redis;
  return new RedisStore({
    connection: { topology, tls, username, password, commandTimeoutMs: config.redisCommandTimeoutMs },
    keyPrefix: config.redisKeyPrefix,
    replicaAck,
    observer: options.observer,
    ...(options.clock ? { clock: options.clock } : {}),
  });
}

/** Opens the configured store: a Redis store is connected (rejects with StoreUnavailableError when Redis cannot be reached). */
export async function openStore(config: Config, options: StoreOptions = {}): Promise<Store> {
  const store = storeOf(config, options);
  if (store instanceof RedisStore) await store.connect();
  return store;
}

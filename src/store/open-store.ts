import type { Clock } from '../clock.js';
import { MemoryStore } from './memory.js';
import { RedisStore } from './redis.js';
import type { RedisTopology } from './redis-connection.js';
import type { ReplicaAck } from './replica-ack.js';
import type { Store, StoreCommandObserver } from './types.js';

/** Where Redis is and how to reach it (REDIS_* variables, src/config/redis.ts). */
export interface RedisSettings {
  readonly topology: RedisTopology;
  readonly tls: boolean;
  readonly username: string | undefined;
  readonly password: string | undefined;
  readonly replicaAck: ReplicaAck;
}

/** The configuration a store is opened from (Config has these members). */
export interface StoreSettings {
  /** Undefined: the in-memory store. */
  readonly redis: RedisSettings | undefined;
  readonly redisKeyPrefix: string;
  readonly redisCommandTimeoutMs: number;
}

export interface StoreOptions {
  readonly clock?: Clock | undefined;
  /** Told of every Redis operation's duration and outcome (metrics). */
  readonly observer?: StoreCommandObserver | undefined;
}

/** The store the configuration names: Redis (standalone, Cluster, Sentinel) when REDIS_* is set, else in memory. */
export function storeOf(config: StoreSettings, options: StoreOptions = {}): MemoryStore | RedisStore {
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
export async function openStore(config: StoreSettings, options: StoreOptions = {}): Promise<Store> {
  const store = storeOf(config, options);
  if (store instanceof RedisStore) await store.connect();
  return store;
}

import { randomBytes } from 'node:crypto';
import tap, { type Test } from 'tap';
import { RedisStore } from '../../src/store/redis.js';
import type { ReplicaAck } from '../../src/store/replica-ack.js';
import { closeRedisClient, createRedisClient, type RedisClient, type RedisTopology } from '../../src/store/redis-connection.js';
import type { StoreCommandObserver } from '../../src/store/types.js';
import type { Teardown } from '../../harness/process.js';
import { type PrivateRedis, startPrivateRedis } from '../../harness/redis.js';
import { type PrivateRedisCluster, startRedisCluster } from '../../harness/redis-cluster.js';
import { nodeCommand } from '../../harness/redis-nodes.js';
import { type PrivateRedisSentinel, startRedisSentinel } from './redis-sentinel.js';
import type { TestClock, TestStore } from './stores.js';

/** Stores on real Redis for the tests (test/redis/, test/e2e/): standalone, Cluster, Sentinel. */

export interface RedisTestStore extends TestStore {
  readonly store: RedisStore;
  /** The prefix of every key of this store (fresh for each store unless chosen). */
  readonly keyPrefix: string;
  /** Another client of the same Redis (cluster-aware), made on first use: to write or read keys as the test needs. */
  raw(): Promise<RedisClient>;
}

/** A store on this file's private standalone redis-server (or the one given). */
export interface StandaloneTestStore extends RedisTestStore {
  readonly redis: PrivateRedis;
}

/** Where a test RedisStore connects: a private standalone server, a cluster, a Sentinel setup. */
export interface RedisTarget {
  readonly topology: RedisTopology;
  /** The ports of the primaries now: where advance() ages the keys. */
  primaryPorts(): Promise<number[]>;
}

export const standaloneTarget = (redis: PrivateRedis): RedisTarget => ({
  topology: redis.topology,
  primaryPorts: async () => [redis.port],
});

export const clusterTarget = (cluster: PrivateRedisCluster): RedisTarget => ({
  topology: cluster.topology,
  primaryPorts: async () => (await cluster.primaries()).map((node) => node.port),
});

export const sentinelTarget = (setup: PrivateRedisSentinel): RedisTarget => ({
  topology: setup.topology,
  primaryPorts: async () => [(await setup.primary()).port],
});

/**
 * What `start` starts, once per test file: started on first use, stopped by the file's
 * teardown and then forgotten, so that the next file run in the same process
 * (scripts/test-batch.mjs) starts its own.
 */
function oncePerFile<T>(start: (t: Teardown) => Promise<T>): () => Promise<T> {
  let started: Promise<T> | undefined;
  return () => {
    if (!started) {
      started = start(tap);
      tap.teardown(() => (started = undefined));
    }
    return started;
  };
}

/** One private redis-server per test file. */
const redisOfThisFile: () => Promise<PrivateRedis> = oncePerFile(startPrivateRedis);

/** One private 3 + 3 Redis Cluster per test file. */
export const clusterOfThisFile: () => Promise<PrivateRedisCluster> = oncePerFile((t) => startRedisCluster(t));

/** One private Sentinel setup (primary, replica, three sentinels) per test file. */
export const sentinelOfThisFile: () => Promise<PrivateRedisSentinel> = oncePerFile((t) => startRedisSentinel(t));

/**
 * Shortens the TTL of every key under ARGV[1] (a glob) by ARGV[2] ms, deleting the keys
 * with nothing left; a key without a TTL is an error (every key of ours has one), except
 * the refresh-token key ARGV[3], which lives as long as the tokens sealed under it, and the
 * admin API's entries (`{entries}`), which are configuration.
 */
const AGE_KEYS = `
local cursor = '0'
repeat
  local page = redis.call('SCAN', cursor, 'MATCH', ARGV[1], 'COUNT', 1000)
  cursor = page[1]
  for _, key in ipairs(page[2]) do
    local ttl = redis.call('PTTL', key)
    if ttl == -1 and key ~= ARGV[3] and not string.find(key, '{entries}:', 1, true) then
      return redis.error_reply('key without a TTL: ' .. key)
    end
    if ttl > 0 then
      local left = ttl - tonumber(ARGV[2])
      if left <= 0 then redis.call('DEL', key) else redis.call('PEXPIRE', key, left) end
    end
  end
until cursor == '0'
return 1
`;

export interface RedisStoreOptions {
  /** The server to use (default: this file's private redis-server); tests that kill it start their own. */
  readonly redis?: PrivateRedis;
  readonly commandTimeoutMs?: number;
  /** Another store's prefix, to share its keys as a second instance would. */
  readonly keyPrefix?: string;
  readonly clock?: TestClock;
  readonly replicaAck?: ReplicaAck;
  /** Told every operation's duration and result (the metrics). */
  readonly observer?: StoreCommandObserver;
}

/** A connected RedisStore under a fresh key prefix on a private redis-server. */
export async function redisStore(t: Test, options: RedisStoreOptions = {}): Promise<StandaloneTestStore> {
  const redis = options.redis ?? (await redisOfThisFile());
  return { ...(await openRedisStore(t, standaloneTarget(redis), options)), redis };
}

/** A connected RedisStore under a fresh key prefix on this file's private Redis Cluster. */
export async function clusterStore(t: Test, options: Omit<RedisStoreOptions, 'redis'> = {}): Promise<RedisTestStore> {
  return openRedisStore(t, clusterTarget(await clusterOfThisFile()), options);
}

/** A connected RedisStore under a fresh key prefix on this file's private Sentinel setup. */
export async function sentinelStore(t: Test, options: Omit<RedisStoreOptions, 'redis'> = {}): Promise<RedisTestStore> {
  return openRedisStore(t, sentinelTarget(await sentinelOfThisFile()), options);
}

/**
 * A connected RedisStore on `target`. `advance` ages the store's keys on every primary
 * (a cluster's keys are spread over its primaries; each node scans only its own).
 */
export async function openRedisStore(
  t: Test,
  target: RedisTarget,
  options: Omit<RedisStoreOptions, 'redis'> = {},
): Promise<RedisTestStore> {
  const clock = options.clock ?? { now: Date.now() };
  const keyPrefix = options.keyPrefix ?? `t${randomBytes(6).toString('hex')}:`;
  const store = new RedisStore({
    connection: { topology: target.topology, commandTimeoutMs: options.commandTimeoutMs ?? 1000 },
    keyPrefix,
    replicaAck: options.replicaAck,
    observer: options.observer,
    clock: () => clock.now,
  });
  await store.connect();
  t.teardown(() => store.close());
  let rawClient: Promise<RedisClient> | undefined;
  const raw = () => {
    rawClient ??= (async () => {
      const client = createRedisClient({ topology: target.topology, commandTimeoutMs: 2000 });
      t.teardown(() => closeRedisClient(client));
      await client.connect();
      return client;
    })();
    return rawClient;
  };
  const advance = async (seconds: number) => {
    clock.now += seconds * 1000;
    for (const port of await target.primaryPorts()) {
      const refreshTokenKey = `${keyPrefix}{refresh-token-key}`;
      await nodeCommand(port, 'EVAL', AGE_KEYS, '0', `${keyPrefix}*`, String(Math.round(seconds * 1000)), refreshTokenKey);
    }
  };
  return { store, clock, advance, keyPrefix, raw };
}

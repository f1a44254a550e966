import { Cluster, type ClusterOptions, Redis, type RedisOptions } from 'ioredis';
import { reconnectUnlessOn, remoteAddress, SentinelSwitches } from './sentinel-switches.js';

/** A Redis node or sentinel, as REDIS_CLUSTER_NODES and REDIS_SENTINELS list them. */
export interface RedisAddress {
  readonly host: string;
  readonly port: number;
}

/** Which Redis the store talks to: exactly one of REDIS_URL, REDIS_CLUSTER_NODES, REDIS_SENTINELS. */
export type RedisTopology =
  | { readonly kind: 'standalone'; readonly url: string }
  | { readonly kind: 'cluster'; readonly nodes: readonly RedisAddress[] }
  | {
      readonly kind: 'sentinel';
      readonly sentinels: readonly RedisAddress[];
      /** The name the sentinels monitor the primary under (REDIS_SENTINEL_NAME). */
      readonly name: string;
      readonly sentinelPassword?: string | undefined;
    };

export interface RedisConnectionSettings {
  readonly topology: RedisTopology;
  /** TLS to the nodes of a node list (and to the sentinels); a standalone URL says it with rediss://. */
  readonly tls?: boolean;
  readonly username?: string | undefined;
  readonly password?: string | undefined;
  /** Upper bound of every command, so a dead or hung Redis fails fast. */
  readonly commandTimeoutMs: number;
}

export type RedisClient = Redis | Cluster;

/** Reconnection delays after a lost connection: quick at first, then every 2 s. */
const reconnectDelay = (attempt: number): number => Math.min(attempt * 100, 2000);

/**
 * Options every connection shares. Nothing waits: no offline queue, no resending of a
 * command in flight when its connection drops (it may have run), and every command is
 * bounded by the timeout. (A cluster client sends such a command again once it knows the
 * slot's new primary; every script is safe to repeat, see the README.)
 */
function nodeOptions(settings: RedisConnectionSettings): RedisOptions {
  return {
    commandTimeout: settings.commandTimeoutMs,
    connectTimeout: Math.max(settings.commandTimeoutMs, 1000),
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    ...(settings.username === undefined ? {} : { username: settings.username }),
    ...(settings.password === undefined ? {} : { password: settings.password }),
    ...(settings.tls ? { tls: {} } : {}),
  };
}

/**
 * Behind Sentinel, a primary that has become a replica (a failover this client has not
 * noticed yet) answers writes with READONLY: reconnect, which asks the sentinels for the
 * primary again; the failed command is not resent. (A standalone URL would lead back to
 * the same node, so there the error is simply returned.)
 */
const reconnectOnReadOnly = (err: Error): 1 | false => (err.message.startsWith('READONLY') ? 1 : false);

/**
 * Builds the ioredis client for the topology, not yet connected (call `connect()`). A
 * `subscriber` follows a shard channel (SSUBSCRIBE, src/store/redis-entries.ts): on Cluster
 * with ioredis' sharded subscribers (one connection to the primary of the channel's slot,
 * moved when the slot moves), elsewhere subscribing again by itself on every reconnect.
 */
export function createRedisClient(settings: RedisConnectionSettings, { subscriber = false }: { subscriber?: boolean } = {}): RedisClient {
  const { topology } = settings;
  const common: RedisOptions = {
    ...nodeOptions(settings),
    lazyConnect: true,
    enableOfflineQueue: false,
    retryStrategy: reconnectDelay,
    ...(subscriber ? { autoResubscribe: false } : {}),
  };
  let client: RedisClient;
  switch (topology.kind) {
    case 'standalone':
      client = new Redis(topology.url, common);
      break;
    case 'sentinel':
      client = new Redis({
        ...common,
        sentinels: topology.sentinels.map(({ host, port }) => ({ host, port })),
        name: topology.name,
        role: 'master',
        ...(topology.sentinelPassword === undefined ? {} : { sentinelPassword: topology.sentinelPassword }),
        sentinelCommandTimeout: settings.commandTimeoutMs,
        sentinelRetryStrategy: reconnectDelay,
        // Not ioredis' failover detector, which reconnects at every +switch-master even a
        // connection already on the promoted replica: the process's SentinelSwitches moves
        // only the connections that are elsewhere (below).
        failoverDetector: false,
        reconnectOnError: reconnectOnReadOnly,
        ...(settings.tls ? { enableTLSForSentinelMode: true, sentinelTLS: {} } : {}),
      });
      break;
    case 'cluster':
      client = new Cluster(
        topology.nodes.map(({ host, port }) => ({ host, port })),
        { ...clusterOptions(settings), ...(subscriber ? { shardedSubscribers: true } : {}) },
      );
      break;
  }
  client.on('error', () => {
    // Connection errors surface as rejected commands; the event must have a listener.
  });
  if (client instanceof Redis) keepReconnecting(client);
  if (client instanceof Redis && topology.kind === 'sentinel') followSwitches(client, topology, settings.tls);
  return client;
}

/** One SentinelSwitches per Sentinel topology in a process: one subscription per sentinel for all its stores' connections. */
const switchesByTopology = new Map<string, SentinelSwitches>();
const switchesOfClient = new WeakMap<RedisClient, SentinelSwitches>();

function followSwitches(client: Redis, topology: Extract<RedisTopology, { kind: 'sentinel' }>, tls: boolean | undefined): void {
  const key = JSON.stringify([topology.sentinels, topology.name, topology.sentinelPassword ?? null, tls === true]);
  let switches = switchesByTopology.get(key);
  if (!switches) {
    switches = new SentinelSwitches({ ...topology, tls });
    switchesByTopology.set(key, switches);
  }
  switchesOfClient.set(client, switches);
  switches.track(client);
}

/**
 * Makes `followers` follow `leader`: whenever the leader is ready again (it reconnected after
 * a READONLY answer, a dropped connection, a +switch-master), each follower connected
 * elsewhere reconnects, asking the sentinels for the primary; one on the leader's address
 * stays connected. SentinelSwitches moves every connection at an announcement; this keeps
 * the acknowledging connections with the main one when the main one found a new primary
 * by other means (a READONLY answer before the announcement reached the process).
 */
export function followAddress(leader: RedisClient, followers: readonly RedisClient[]): void {
  if (!(leader instanceof Redis)) return;
  leader.on('ready', () => {
    const address = remoteAddress(leader);
    if (address === undefined) return;
    for (const follower of followers) if (follower instanceof Redis) reconnectUnlessOn(follower, address);
  });
}

/** Clients closed on purpose (closeRedisClient): their end is final. */
const closedOnPurpose = new WeakSet<RedisClient>();

/**
 * ioredis gives a connection up for good ("end": every command then fails with
 * "Connection is closed.") when its connector fails while connecting, and never retries.
 * Behind Sentinel that happens in a failover: the failover detector disconnects the
 * connector while a reconnect is resolving the primary, and the instance stayed down until
 * something else connected it (seen: 12 s of 500s after the promotion). Reconnect after the
 * usual delay instead, unless the store closed the client.
 */
function keepReconnecting(client: Redis): void {
  let attempt = 0;
  client.on('ready', () => {
    attempt = 0;
  });
  client.on('end', () => {
    if (closedOnPurpose.has(client)) return;
    attempt += 1;
    setTimeout(() => {
      if (!closedOnPurpose.has(client) && client.status === 'end') client.connect().catch(() => undefined);
    }, reconnectDelay(attempt)).unref();
  });
}

function clusterOptions(settings: RedisConnectionSettings): ClusterOptions {
  return {
    lazyConnect: true,
    enableOfflineQueue: false,
    // Every command goes to the primary of its slot: replicas lag (asynchronous replication).
    scaleReads: 'master',
    clusterRetryStrategy: reconnectDelay,
    slotsRefreshTimeout: settings.commandTimeoutMs,
    // Besides refreshing on MOVED and on a lost node, re-read the slot map every few
    // seconds so a failover is noticed even by an instance without traffic to that node.
    slotsRefreshInterval: 5000,
    // No ioredis keyPrefix: keys are built whole (src/store/redis-keys.ts), so the hash
    // tag ioredis hashes is exactly the one in the key.
    redisOptions: nodeOptions(settings),
    // With TLS, connect to the address the cluster announces under its own name, so the
    // certificate is checked against the name (managed clusters announce host names).
    ...(settings.tls ? { dnsLookup: (address, callback) => callback(null, address) } : {}),
  };
}

/** QUIT, then disconnect; a Sentinel client stops following the announcements (SentinelSwitches) first. */
export async function closeRedisClient(client: RedisClient): Promise<void> {
  closedOnPurpose.add(client);
  if (client instanceof Redis) switchesOfClient.get(client)?.untrack(client);
  try {
    await client.quit();
  } catch {
    // closed already, or unreachable: disconnect below either way
  } finally {
    client.disconnect();
  }
}

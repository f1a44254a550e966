import { Cluster, type ClusterOptions, Redis, type RedisOptions } from 'ioredis';

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
export function createRedisClient(
  settings: RedisConnectionSettings,
  { subscriber = false, detectFailover = true }: { subscriber?: boolean; detectFailover?: boolean } = {},
): RedisClient {
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
        // Subscribes to +switch-master: reconnects to a promoted replica as soon as the
        // sentinels announce it, instead of when the old primary's connection times out.
        // Connections that follow another one instead (followAddress) leave it out.
        failoverDetector: detectFailover,
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
  return client;
}

/**
 * Makes `followers` (Sentinel clients made with `detectFailover: false`) follow `leader`:
 * whenever the leader is ready again, each follower connected elsewhere reconnects, asking
 * the sentinels for the primary. ioredis' failover detector reconnects its client at every
 * +switch-master, even one that reconnected to the promoted replica on its own already (a
 * killed primary drops every connection at once, and the sentinels name the promoted
 * replica before they announce it): with a detector each, every connection of a process
 * was down again at once right after /readyz had answered 200, and the writes of that
 * moment failed (seen in the failover test). The leader keeps its detector, for a primary
 * that is cut off rather than dead, whose connections would not drop by themselves.
 */
export function followAddress(leader: RedisClient, followers: readonly RedisClient[]): void {
  if (!(leader instanceof Redis)) return;
  leader.on('ready', () => {
    const address = remoteAddress(leader);
    if (address === undefined) return;
    for (const follower of followers) {
      if (!(follower instanceof Redis) || follower.status !== 'ready') continue;
      const current = remoteAddress(follower);
      if (current !== undefined && current !== address) follower.disconnect(true);
    }
  });
}

function remoteAddress(client: Redis): string | undefined {
  const { remoteAddress: host, remotePort: port } = client.stream ?? {};
  return host === undefined || port === undefined ? undefined : `${host}:${port}`;
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

/** QUIT, then disconnect: a Sentinel client's failover detector keeps its own sentinel connections until then. */
export async function closeRedisClient(client: RedisClient): Promise<void> {
  closedOnPurpose.add(client);
  try {
    await client.quit();
  } catch {
    // closed already, or unreachable: disconnect below either way
  } finally {
    client.disconnect();
  }
}

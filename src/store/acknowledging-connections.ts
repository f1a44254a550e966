import { closeRedisClient, createRedisClient, followAddress, type RedisClient, type RedisConnectionSettings } from './redis-connection.js';

/**
 * How many connections each instance opens for the writes followed by WAIT
 * (REDIS_MIN_REPLICAS_ACK above 0), besides its connection for everything else: enough
 * for the writes one process has in flight at once to wait for the replicas side by side.
 */
export const ACKNOWLEDGING_CONNECTIONS = 8;

/** A connection lent to one write; `release` once, when every reply of its pipeline is in. */
export interface AcknowledgingLease {
  readonly client: RedisClient;
  release(): unknown;
}

interface Connection {
  readonly client: RedisClient;
  inFlight: number;
}

/**
 * The connections single-use writes go out on, each followed by WAIT. WAIT blocks its
 * connection until the replicas acknowledge (up to REDIS_REPLICAS_ACK_TIMEOUT_MS), and Redis
 * runs nothing a blocked connection sent meanwhile: on one shared connection every write
 * queued behind the WAIT before it, so while a replica was slow (resynchronizing after a
 * failover, a loaded host) a few concurrent writes passed the command timeout in turn, the
 * refusals the primary would have answered at once included (seen in the failover test:
 * rotated tokens answered server_error instead of invalid_grant). Each write takes the
 * connection with the fewest writes in flight, a ready one first, so concurrent writes wait
 * for the replicas side by side.
 */
export class AcknowledgingConnections {
  private readonly connections: readonly Connection[];

  /** `leader`: the store's main connection, whose primary these follow behind Sentinel (see followAddress). */
  constructor(settings: RedisConnectionSettings, leader: RedisClient, size = ACKNOWLEDGING_CONNECTIONS) {
    this.connections = Array.from({ length: size }, () => ({
      client: createRedisClient(settings),
      inFlight: 0,
    }));
    followAddress(
      leader,
      this.connections.map(({ client }) => client),
    );
  }

  async connect(): Promise<void> {
    await Promise.all(this.connections.map(({ client }) => client.connect()));
  }

  async close(): Promise<void> {
    await Promise.all(this.connections.map(({ client }) => closeRedisClient(client)));
  }

  lease(): AcknowledgingLease {
    const chosen = this.leastBusy();
    chosen.inFlight += 1;
    return { client: chosen.client, release: () => (chosen.inFlight -= 1) };
  }

  /** The first of the least busy: one write at a time always takes the same connection. */
  private leastBusy(): Connection {
    let best = this.connections[0] as Connection;
    for (const candidate of this.connections) if (isBetter(candidate, best)) best = candidate;
    return best;
  }
}

/** A ready connection over one that is (re)connecting; then fewer writes in flight. */
function isBetter(candidate: Connection, best: Connection): boolean {
  const candidateReady = candidate.client.status === 'ready';
  const bestReady = best.client.status === 'ready';
  if (candidateReady !== bestReady) return candidateReady;
  return candidate.inFlight < best.inFlight;
}

import { type Callback, Cluster, type ChainableCommander } from 'ioredis';
import type { AcknowledgingConnections } from './acknowledging-connections.js';
import type { RedisClient } from './redis-connection.js';

/** REDIS_MIN_REPLICAS_ACK and REDIS_REPLICAS_ACK_TIMEOUT_MS. */
export interface ReplicaAck {
  /** Replicas that must hold a single-use write before its token is issued (0: do not wait). */
  readonly minReplicas: number;
  /** How long WAIT may block; less than the command timeout (config enforces it). */
  readonly timeoutMs: number;
}

/**
 * Replication is asynchronous: a primary acknowledges a write before any replica has it,
 * and a replica promoted after the primary dies would not know that a code was consumed
 * or a refresh token rotated. WAIT blocks until `minReplicas` replicas acknowledged every
 * write this connection sent before it. It cannot run inside a Lua script, and it counts
 * only the writes of its own connection, so the write and WAIT go out together in one
 * pipeline, on one connection to the node that owns the keys (ioredis sends a cluster
 * pipeline whole to the node of its slot; a MOVED is followed here, the pipeline resent whole),
 * lent by `connections` to this write (see acknowledging-connections.ts).
 * A write below the threshold is an error: the caller issues nothing (fail closed).
 *
 * Except a reply that `standsUnacknowledged`: a refusal the primary proved from state it
 * holds (a reuse detected, a revoked family, a replayed code). Nothing is issued on it, so
 * it fails closed either way, and answering it tells the client where it stands instead of
 * a server error; it is answered on the write's own reply, before WAIT's. A primary that
 * lost data (restarted without persistence, not yet demoted) cannot make such a reply up,
 * having no revocation or later generation to show; a reply that nothing was found could
 * come from one, so it still waits. A revocation the refusal wrote may not be on a replica
 * yet: should this primary die now, the promoted replica lacks it, as with
 * REDIS_MIN_REPLICAS_ACK=0, and the next presentation of the earlier token revokes again.
 *
 * Scripts go out as EVAL here, not through `defineCommand`'s EVALSHA: ioredis answers a
 * NOSCRIPT by resending the script outside the pipeline, after the WAIT, which would then
 * not cover it. Redis caches the script by its digest either way; the cost is its text
 * (under 1 KB) on the wire.
 */
export function writeAcknowledgedByReplicas<T>(
  connections: AcknowledgingConnections,
  ack: ReplicaAck,
  write: AcknowledgedWrite,
  standsUnacknowledged: (reply: T) => boolean = () => false,
): Promise<T> {
  const lease = connections.lease();
  return new Promise<T>((resolve, reject) => {
    // The write's own reply arrives before WAIT's: a refusal that stands unacknowledged is
    // answered on it, without waiting for the replicas. The connection stays lent until
    // WAIT answers too (it is blocked until then).
    const written: Callback<unknown> = (err, reply) => {
      if (!err && standsUnacknowledged(reply as T)) resolve(reply as T);
    };
    acknowledgedOn(lease.client, ack, write, written, standsUnacknowledged).then(resolve, reject).finally(lease.release);
  });
}

/**
 * Builds the write into the pipeline: one command, which calls `written` with its own
 * reply as soon as that is in.
 */
export type AcknowledgedWrite = (pipeline: ChainableCommander, written: Callback<unknown>) => ChainableCommander;

async function acknowledgedOn<T>(
  client: RedisClient,
  ack: ReplicaAck,
  write: AcknowledgedWrite,
  written: Callback<unknown>,
  standsUnacknowledged: (reply: T) => boolean,
): Promise<T> {
  for (let redirections = 0; ; redirections += 1) {
    const replies = await write(client.pipeline(), written).wait(ack.minReplicas, ack.timeoutMs).exec();
    const [result, waited] = replies ?? [];
    if (!result || !waited) throw new Error('the write and WAIT pipeline was discarded');
    if (result[0]) {
      // The slot moved (a promoted replica, a resharding) and the write did not run: ioredis
      // follows a pipeline's MOVED only when every command failed alike, and the keyless WAIT
      // succeeded on the wrong node, so its slot map would stay stale until the next
      // periodic refresh, every single-use write of that slot failing meanwhile.
      if (client instanceof Cluster && isMoved(result[0]) && redirections < MAX_REDIRECTIONS) {
        await slotsRefreshed(client);
        continue;
      }
      throw result[0];
    }
    const reply = result[1] as T;
    if (standsUnacknowledged(reply)) return reply;
    if (waited[0]) throw waited[0];
    const acknowledged = Number(waited[1]);
    if (acknowledged < ack.minReplicas) {
      throw new Error(`${acknowledged} of the ${ack.minReplicas} required replicas acknowledged the write within ${ack.timeoutMs} ms`);
    }
    return reply;
  }
}

/** How often one write follows a MOVED before it fails: a slot map read during a failover can still be stale. */
const MAX_REDIRECTIONS = 3;

function isMoved(error: Error): boolean {
  return error.message.startsWith('MOVED ');
}

function slotsRefreshed(cluster: Cluster): Promise<void> {
  // A failed refresh leaves the old map: the resent write then fails, bounded by the caller's timeout.
  return new Promise((resolve) => cluster.refreshSlotsCache(() => resolve()));
}

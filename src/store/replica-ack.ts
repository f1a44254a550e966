import { Cluster, type ChainableCommander } from 'ioredis';
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
 * pipeline whole to the node of its slot; a MOVED is followed here, the pipeline resent whole).
 * A write below the threshold is an error: the caller issues nothing (fail closed).
 *
 * Except a reply that `standsUnacknowledged`: a refusal the primary proved from state it
 * holds (a reuse detected, a revoked family, a replayed code). Nothing is issued on it, so
 * it fails closed either way, and answering it tells the client where it stands instead of
 * a server error. A primary that lost data (restarted without persistence, not yet
 * demoted) cannot make such a reply up, having no revocation or later generation to show;
 * a reply that nothing was found could come from one, so it still waits. A revocation the
 * refusal wrote may not be on a replica yet: should this primary die now, the promoted
 * replica lacks it, as with REDIS_MIN_REPLICAS_ACK=0, and the next presentation of the
 * earlier token revokes again.
 *
 * Scripts go out as EVAL here, not through `defineCommand`'s EVALSHA: ioredis answers a
 * NOSCRIPT by resending the script outside the pipeline, after the WAIT, which would then
 * not cover it. Redis caches the script by its digest either way; the cost is its text
 * (under 1 KB) on the wire.
 */
export async function writeAcknowledgedByReplicas<T>(
  client: RedisClient,
  ack: ReplicaAck,
  write: (pipeline: ChainableCommander) => ChainableCommander,
  standsUnacknowledged: (reply: T) => boolean = () => false,
): Promise<T> {
  for (let redirections = 0; ; redirections += 1) {
    const replies = await write(client.pipeline()).wait(ack.minReplicas, ack.timeoutMs).exec();
    const [written, waited] = replies ?? [];
    if (!written || !waited) throw new Error('the write and WAIT pipeline was discarded');
    if (written[0]) {
      // The slot moved (a promoted replica, a resharding) and the write did not run: ioredis
      // follows a pipeline's MOVED only when every command failed alike, and the keyless WAIT
      // succeeded on the wrong node, so its slot map would stay stale until the next
      // periodic refresh, every single-use write of that slot failing meanwhile.
      if (client instanceof Cluster && isMoved(written[0]) && redirections < MAX_REDIRECTIONS) {
        await slotsRefreshed(client);
        continue;
      }
      throw written[0];
    }
    const reply = written[1] as T;
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

import type { ChainableCommander } from 'ioredis';
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
 * pipeline whole to the node of its slot, and resends it whole after a redirection).
 * A write below the threshold is an error: the caller issues nothing (fail closed).
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
): Promise<T> {
  const replies = await write(client.pipeline()).wait(ack.minReplicas, ack.timeoutMs).exec();
  const [written, waited] = replies ?? [];
  if (!written || !waited) throw new Error('the write and WAIT pipeline was discarded');
  if (written[0]) throw written[0];
  if (waited[0]) throw waited[0];
  const acknowledged = Number(waited[1]);
  if (acknowledged < ack.minReplicas) {
    throw new Error(`${acknowledged} of the ${ack.minReplicas} required replicas acknowledged the write within ${ack.timeoutMs} ms`);
  }
  return written[1] as T;
}

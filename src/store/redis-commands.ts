import type { Clock } from '../clock.js';
import { StoreUnavailableError } from '../errors/index.js';
import { AcknowledgingConnections } from './acknowledging-connections.js';
import { type ReplicaAck, writeAcknowledgedByReplicas } from './replica-ack.js';
import { closeRedisClient, createRedisClient, type RedisClient, type RedisConnectionSettings } from './redis-connection.js';
import type { RedisKeys } from './redis-keys.js';
import { type ScriptArgument, type ScriptCommands, type ScriptName, SCRIPTS } from './redis-scripts.js';
import type { StoreCommandObserver } from './types.js';

type ScriptedClient = Record<ScriptName, (...args: ScriptArgument[]) => Promise<unknown>>;

/**
 * How the Redis store runs a command: on its connection (with the Lua scripts defined), the
 * writes that make a token single-use on connections of their own followed by WAIT when
 * REDIS_MIN_REPLICAS_ACK asks for it, each operation bounded by the command timeout and
 * reported to the observer. Any failure is a StoreUnavailableError.
 */
export class RedisCommands implements ScriptCommands {
  readonly client: RedisClient;
  /**
   * With REDIS_MIN_REPLICAS_ACK: the connections for the writes followed by WAIT. WAIT
   * blocks its connection until the replicas answer (up to its timeout, when a replica is
   * down), so reads and other writes keep their own connection.
   */
  private readonly acknowledging: AcknowledgingConnections | undefined;
  readonly timeoutMs: number;

  constructor(
    connection: RedisConnectionSettings,
    readonly keys: RedisKeys,
    readonly clock: Clock,
    private readonly replicaAck: ReplicaAck | undefined,
    private readonly observer: StoreCommandObserver | undefined,
  ) {
    this.timeoutMs = connection.commandTimeoutMs;
    this.client = createRedisClient(connection);
    for (const [name, script] of Object.entries(SCRIPTS)) this.client.defineCommand(name, script);
    this.acknowledging = replicaAck?.minReplicas ? new AcknowledgingConnections(connection, this.client) : undefined;
  }

  /** Opens every connection, within `timeoutMs`. */
  connect(timeoutMs: number): Promise<void> {
    const connecting = Promise.all([this.client.connect(), this.acknowledging?.connect()]);
    connecting.catch(() => undefined);
    return this.call('connect', () => connecting.then(() => undefined), timeoutMs);
  }

  /** Whether single-use writes wait for replicas (REDIS_MIN_REPLICAS_ACK above 0). */
  get acknowledgesWrites(): boolean {
    return this.acknowledging !== undefined;
  }

  async close(): Promise<void> {
    await Promise.all([closeRedisClient(this.client), this.acknowledging?.close()]);
  }

  script<T>(name: ScriptName, keys: string[], args: ScriptArgument[]): Promise<T> {
    return (this.client as unknown as ScriptedClient)[name](...keys, ...args) as Promise<T>;
  }

  /** A write that makes a token single-use (or revokes): with REDIS_MIN_REPLICAS_ACK, followed by WAIT. */
  acknowledgedScript<T>(
    name: ScriptName,
    keys: string[],
    args: ScriptArgument[],
    standsUnacknowledged?: (reply: T) => boolean,
  ): Promise<T> {
    const ack = this.replicaAck;
    if (!this.acknowledging || !ack) return this.script(name, keys, args);
    return writeAcknowledgedByReplicas<T>(
      this.acknowledging,
      ack,
      (pipeline, written) => pipeline.eval(SCRIPTS[name].lua, keys.length, ...keys, ...args, written),
      standsUnacknowledged,
    );
  }

  /** A plain write (SET) that makes something single-use: followed by WAIT like acknowledgedScript. */
  acknowledgedSet(key: string, value: string, expiry: 'EX' | 'PX', ttl: number, onlyIfNew: boolean): Promise<string | null> {
    const ack = this.replicaAck;
    if (!this.acknowledging || !ack)
      return onlyIfNew ? this.client.set(key, value, expiry as 'PX', ttl, 'NX') : this.client.set(key, value, expiry as 'PX', ttl);
    return writeAcknowledgedByReplicas<string | null>(this.acknowledging, ack, (pipeline) =>
      onlyIfNew ? pipeline.set(key, value, expiry as 'PX', ttl, 'NX') : pipeline.set(key, value, expiry as 'PX', ttl),
    );
  }

  /**
   * Bounds the whole operation by the command timeout: besides each command's own
   * timeout, a cluster client retries a command while a failover is under way, and the
   * caller must not wait for that longer than it would for a dead standalone Redis.
   */
  async call<T>(operation: string, command: () => Promise<T>, timeoutMs = this.timeoutMs): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    });
    const started = process.hrtime.bigint();
    let succeeded = false;
    try {
      const result = await Promise.race([command(), deadline]);
      succeeded = true;
      return result;
    } catch (err) {
      throw new StoreUnavailableError(`redis ${operation} failed: ${(err as Error).message}`, { cause: err });
    } finally {
      clearTimeout(timer);
      this.observer?.storeCommandFinished(operation, Number(process.hrtime.bigint() - started) / 1e9, succeeded);
    }
  }
}

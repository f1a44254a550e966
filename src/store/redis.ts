import { randomBytes } from 'node:crypto';
import { Cluster } from 'ioredis';
import type { Clock } from '../clock.js';
import { StoreUnavailableError } from '../errors.js';
import { type ReplicaAck, writeAcknowledgedByReplicas } from './replica-ack.js';
import { closeRedisClient, createRedisClient, type RedisClient, type RedisConnectionSettings } from './redis-connection.js';
import { clusterIsServing } from './redis-readiness.js';
import { RedisKeys } from './redis-keys.js';
import { RedisConsents, RedisGrantIndex, type GrantCommands } from './redis-grants.js';
import { RedisClientRegistrations } from './redis-registrations.js';
import { RedisLegacyRefreshTokens } from './redis-legacy-refresh.js';
import { RedisAttemptCounter } from './redis-attempts.js';
import { RedisRefreshFamilies } from './redis-refresh.js';
import { type ScriptArgument, type ScriptCommands, type ScriptName, SCRIPTS } from './redis-scripts.js';
import type {
  AuthorizationCodeRecord,
  CodeRedemption,
  FirstRefreshToken,
  OpaqueTokenRef,
  RedemptionOutcome,
  RefreshFamilyState,
  RefreshTokenRef,
  RotationOptions,
  RotationOutcome,
  Store,
  StoreCommandObserver,
} from './types.js';

export interface RedisStoreOptions {
  readonly connection: RedisConnectionSettings;
  /** Prefix of every key, e.g. `oauth:`; never contains `{` or `}` (config refuses it). */
  readonly keyPrefix: string;
  /** Replicas that must acknowledge what makes a token single-use before it is issued (default: none). */
  readonly replicaAck?: ReplicaAck | undefined;
  readonly clock?: Clock;
  /** Told the duration and result of every operation (the metrics). */
  readonly observer?: StoreCommandObserver | undefined;
}

export { SCRIPTS } from './redis-scripts.js';

type ScriptedClient = Record<ScriptName, (...args: ScriptArgument[]) => Promise<unknown>>;

const READINESS_PROBE_TTL_MS = 5000;
/** The least time a start gives Redis to connect before it goes on unready (a cluster connects to every node). */
const CONNECT_TIMEOUT_FLOOR_MS = 3000;

/**
 * The store on Redis: standalone, Sentinel or Cluster (src/store/redis-connection.ts),
 * keys laid out in src/store/redis-keys.ts. Every operation is bounded by the command
 * timeout and fails with StoreUnavailableError when Redis does not acknowledge it.
 */
export class RedisStore implements Store {
  readonly kind = 'redis';
  private readonly client: RedisClient;
  /**
   * With REDIS_MIN_REPLICAS_ACK: a second connection for the writes followed by WAIT.
   * WAIT blocks its connection until the replicas answer (up to its timeout, when a
   * replica is down), so reads and other writes keep their own connection.
   */
  private readonly acknowledgedClient: RedisClient | undefined;
  private readonly keys: RedisKeys;
  private readonly clock: Clock;
  private readonly readinessKey: string;
  private readonly timeoutMs: number;
  readonly clientRegistrations: RedisClientRegistrations;
  readonly grantIndex: RedisGrantIndex;
  readonly consents: RedisConsents;
  readonly legacyRefreshTokens: RedisLegacyRefreshTokens;
  readonly attempts: RedisAttemptCounter;
  private readonly families: RedisRefreshFamilies;

  constructor(private readonly options: RedisStoreOptions) {
    this.clock = options.clock ?? Date.now;
    this.keys = new RedisKeys(options.keyPrefix);
    this.readinessKey = this.keys.readinessProbe(randomBytes(8).toString('hex'));
    this.timeoutMs = options.connection.commandTimeoutMs;
    this.client = createRedisClient(options.connection);
    for (const [name, script] of Object.entries(SCRIPTS)) this.client.defineCommand(name, script);
    this.acknowledgedClient = options.replicaAck?.minReplicas ? createRedisClient(options.connection) : undefined;
    this.clientRegistrations = new RedisClientRegistrations({
      client: this.client,
      keys: this.keys,
      clock: this.clock,
      call: (operation, command) => this.call(operation, command),
      readClientRegistration: (key) => this.script('readClientRegistration', [key], []),
    });
    const grantCommands: GrantCommands = {
      client: this.client,
      keys: this.keys,
      clock: this.clock,
      call: (operation, command) => this.call(operation, command),
      script: (name, keys, args) => this.script(name, keys, args),
    };
    this.grantIndex = new RedisGrantIndex(grantCommands);
    this.consents = new RedisConsents(grantCommands);
    const scriptCommands: ScriptCommands = {
      keys: this.keys,
      clock: this.clock,
      call: (operation, command) => this.call(operation, command),
      script: (name, keys, args) => this.script(name, keys, args),
      acknowledgedScript: (name, keys, args, standsUnacknowledged) => this.acknowledgedScript(name, keys, args, standsUnacknowledged),
    };
    this.families = new RedisRefreshFamilies(scriptCommands);
    this.legacyRefreshTokens = new RedisLegacyRefreshTokens(scriptCommands);
    this.attempts = new RedisAttemptCounter(scriptCommands);
  }

  /**
   * Opens the connections; rejects with StoreUnavailableError if Redis cannot be reached
   * within a few command timeouts. The clients keep reconnecting in the background (a
   * Sentinel client would otherwise wait for a reachable sentinel without end).
   */
  async connect(): Promise<void> {
    const connecting = Promise.all([this.client.connect(), this.acknowledgedClient?.connect()]);
    connecting.catch(() => undefined);
    await this.call('connect', () => connecting, Math.max(3 * this.timeoutMs, CONNECT_TIMEOUT_FLOOR_MS));
  }

  async saveAuthorizationCode(code: OpaqueTokenRef, record: AuthorizationCodeRecord, ttlSeconds: number): Promise<void> {
    const created = await this.call('create code', () =>
      this.script('createRecord', [this.keys.code(code)], [JSON.stringify(record), ttlSeconds * 1000]),
    );
    if (created !== 1) throw new StoreUnavailableError('authorization code already exists');
  }

  async redeemAuthorizationCode(code: OpaqueTokenRef, redemption: CodeRedemption): Promise<RedemptionOutcome> {
    const now = this.clock();
    const first = redemption.firstRefreshToken;
    const reply = await this.call('consume code', () =>
      this.acknowledgedScript<[0] | [1, string, 0 | 1] | [2, string]>(
        'redeemAuthorizationCode',
        [this.keys.code(code), this.keys.family(code.grantId)],
        [
          now,
          redemption.revocationMarkSeconds * 1000,
          first?.digest ?? '',
          first ? now + first.lifetimes.idleSeconds * 1000 : 0,
          first ? first.lifetimes.absoluteSeconds * 1000 : 0,
        ],
        // A replay is refused on the code's used mark, whether or not a replica has the revocation.
        (replied) => replied[0] === 2,
      ),
    );
    if (reply[0] === 0) return { status: 'not_found' };
    const record = JSON.parse(reply[1]) as AuthorizationCodeRecord;
    return reply[0] === 1 ? { status: 'consumed', record, familyStarted: reply[2] === 1 } : { status: 'replayed', record };
  }

  refreshTokenKey(candidate?: Buffer): Promise<Buffer> {
    return this.families.refreshTokenKey(candidate);
  }

  startRefreshFamily(grantId: string, first: FirstRefreshToken): Promise<boolean> {
    return this.families.startRefreshFamily(grantId, first);
  }

  readRefreshFamily(grantId: string): Promise<RefreshFamilyState | undefined> {
    return this.families.readRefreshFamily(grantId);
  }

  rotateRefreshFamily(
    presented: RefreshTokenRef,
    successorDigest: string,
    sealed: string,
    options: RotationOptions,
  ): Promise<RotationOutcome> {
    return this.families.rotateRefreshFamily(presented, successorDigest, sealed, options);
  }

  async revokeGrant(grantId: string, ttlSeconds: number): Promise<void> {
    await this.call('revoke grant', () => this.acknowledgedScript('revokeGrant', [this.keys.family(grantId)], [ttlSeconds * 1000]));
  }

  async revokeKnownGrant(grantId: string, ttlSeconds: number): Promise<boolean> {
    const keys = [this.keys.family(grantId), this.keys.indexedGrant(grantId)];
    return (await this.call('revoke known grant', () => this.acknowledgedScript('revokeKnownGrant', keys, [ttlSeconds * 1000]))) === 1;
  }

  async isGrantRevoked(grantId: string): Promise<boolean> {
    return (await this.call('read grant', () => this.client.hget(this.keys.family(grantId), 'revoked'))) === '1';
  }

  async denylistAccessToken(jti: string, ttlSeconds: number): Promise<void> {
    const key = this.keys.deniedAccessToken(jti);
    const ttl = Math.max(1, ttlSeconds);
    await this.call('denylist access token', () =>
      this.acknowledgedClient && this.options.replicaAck
        ? writeAcknowledgedByReplicas(this.acknowledgedClient, this.options.replicaAck, (pipeline) => pipeline.set(key, '1', 'EX', ttl))
        : this.client.set(key, '1', 'EX', ttl),
    );
  }

  async isAccessTokenDenylisted(jti: string): Promise<boolean> {
    return (await this.call('read denylist', () => this.client.exists(this.keys.deniedAccessToken(jti)))) === 1;
  }

  async rememberDpopProof(jkt: string, jti: string, ttlSeconds: number): Promise<boolean> {
    const key = this.keys.dpopProof(jkt, jti);
    const ttlMs = Math.max(1, ttlSeconds) * 1000;
    // One SET NX PX: the check and the record are one command, so a concurrent replay cannot pass both.
    const reply = await this.call('remember dpop proof', () =>
      this.acknowledgedClient && this.options.replicaAck
        ? writeAcknowledgedByReplicas<string | null>(this.acknowledgedClient, this.options.replicaAck, (pipeline) =>
            pipeline.set(key, '1', 'PX', ttlMs, 'NX'),
          )
        : this.client.set(key, '1', 'PX', ttlMs, 'NX'),
    );
    return reply === 'OK';
  }

  /**
   * A write, not a PING: a Redis that answers but refuses writes (OOM at maxmemory, a
   * read-only replica, MISCONF after a failed save) cannot record codes or refresh
   * tokens, so it is not ready. The probe key expires on its own. On a cluster the probe
   * reaches one slot, so every primary is asked too (see clusterIsServing).
   */
  async ping(): Promise<void> {
    const reply = await this.call('readiness write', () => this.client.set(this.readinessKey, '1', 'PX', READINESS_PROBE_TTL_MS));
    if (reply !== 'OK') throw new StoreUnavailableError('redis readiness write not acknowledged');
    const cluster = this.client;
    if (cluster instanceof Cluster) await this.call('cluster state', () => clusterIsServing(cluster));
  }

  async close(): Promise<void> {
    await Promise.all([closeRedisClient(this.client), this.acknowledgedClient && closeRedisClient(this.acknowledgedClient)]);
  }

  private script<T>(name: ScriptName, keys: string[], args: ScriptArgument[]): Promise<T> {
    return (this.client as unknown as ScriptedClient)[name](...keys, ...args) as Promise<T>;
  }

  /** A write that makes a token single-use (or revokes): with REDIS_MIN_REPLICAS_ACK, followed by WAIT. */
  private acknowledgedScript<T>(
    name: ScriptName,
    keys: string[],
    args: ScriptArgument[],
    standsUnacknowledged?: (reply: T) => boolean,
  ): Promise<T> {
    const ack = this.options.replicaAck;
    if (!this.acknowledgedClient || !ack) return this.script(name, keys, args);
    return writeAcknowledgedByReplicas<T>(
      this.acknowledgedClient,
      ack,
      (pipeline) => pipeline.eval(SCRIPTS[name].lua, keys.length, ...keys, ...args),
      standsUnacknowledged,
    );
  }

  /**
   * Bounds the whole operation by the command timeout: besides each command's own
   * timeout, a cluster client retries a command while a failover is under way, and the
   * caller must not wait for that longer than it would for a dead standalone Redis.
   */
  private async call<T>(operation: string, command: () => Promise<T>, timeoutMs = this.timeoutMs): Promise<T> {
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
      this.options.observer?.storeCommandFinished(operation, Number(process.hrtime.bigint() - started) / 1e9, succeeded);
    }
  }
}

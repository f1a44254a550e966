import { randomBytes } from 'node:crypto';
import { Cluster } from 'ioredis';
import type { Clock } from '../clock.js';
import { StoreUnavailableError } from '../errors/index.js';
import type { ReplicaAck } from './replica-ack.js';
import { createRedisClient, type RedisConnectionSettings } from './redis-connection.js';
import { RedisEntries } from './redis-entries.js';
import { RedisCommands } from './redis-commands.js';
import { clusterIsServing } from './redis-readiness.js';
import { RedisKeys } from './redis-keys.js';
import { RedisConsents, RedisGrantIndex } from './redis-grants.js';
import { RedisClientRegistrations } from './redis-registrations.js';
import { RedisListing } from './redis-listings.js';
import { RedisLegacyRefreshTokens } from './redis-legacy-refresh.js';
import { RedisAttemptCounter } from './redis-attempts.js';
import { RedisRefreshFamilies } from './redis-refresh.js';
import { RedisUpstream } from './redis-upstream.js';
import { RedisDeviceCodes } from './redis-devices.js';
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
  private readonly commands: RedisCommands;
  private readonly keys: RedisKeys;
  private readonly clock: Clock;
  private readonly readinessKey: string;
  readonly clientRegistrations: RedisClientRegistrations;
  readonly grantIndex: RedisGrantIndex;
  readonly consents: RedisConsents;
  readonly legacyRefreshTokens: RedisLegacyRefreshTokens;
  readonly attempts: RedisAttemptCounter;
  readonly upstream: RedisUpstream;
  readonly deviceCodes: RedisDeviceCodes;
  readonly entries: RedisEntries;
  private readonly families: RedisRefreshFamilies;

  constructor(options: RedisStoreOptions) {
    this.clock = options.clock ?? Date.now;
    this.keys = new RedisKeys(options.keyPrefix);
    this.readinessKey = this.keys.readinessProbe(randomBytes(8).toString('hex'));
    const commands = new RedisCommands(options.connection, this.keys, this.clock, options.replicaAck, options.observer);
    this.commands = commands;
    this.clientRegistrations = new RedisClientRegistrations({
      client: commands.client,
      keys: this.keys,
      clock: this.clock,
      call: (operation, command) => commands.call(operation, command),
      readClientRegistration: (key) => commands.script('readClientRegistration', [key], []),
      listing: new RedisListing(commands, 'registrations'),
    });
    this.grantIndex = new RedisGrantIndex(commands);
    this.consents = new RedisConsents(commands);
    this.families = new RedisRefreshFamilies(commands);
    this.legacyRefreshTokens = new RedisLegacyRefreshTokens(commands);
    this.attempts = new RedisAttemptCounter(commands);
    this.upstream = new RedisUpstream(commands, commands.client);
    this.deviceCodes = new RedisDeviceCodes(commands, commands.client);
    this.entries = new RedisEntries({
      client: commands.client,
      keys: this.keys,
      clock: this.clock,
      call: (operation, command) => commands.call(operation, command),
      script: (name, keys, args) => commands.script(name, keys, args),
      acknowledgedScript: (name, keys, args, stands) => commands.acknowledgedScript(name, keys, args, stands),
      openSubscriber: () => createRedisClient(options.connection, { subscriber: true }),
    });
  }

  /**
   * Opens the connections; rejects with StoreUnavailableError if Redis cannot be reached
   * within a few command timeouts. The clients keep reconnecting in the background (a
   * Sentinel client would otherwise wait for a reachable sentinel without end).
   */
  connect(): Promise<void> {
    return this.commands.connect(Math.max(3 * this.commands.timeoutMs, CONNECT_TIMEOUT_FLOOR_MS));
  }

  async saveAuthorizationCode(code: OpaqueTokenRef, record: AuthorizationCodeRecord, ttlSeconds: number): Promise<void> {
    const created = await this.commands.call('create code', () =>
      this.commands.script('createRecord', [this.keys.code(code)], [JSON.stringify(record), ttlSeconds * 1000]),
    );
    if (created !== 1) throw new StoreUnavailableError('authorization code already exists');
  }

  async redeemAuthorizationCode(code: OpaqueTokenRef, redemption: CodeRedemption): Promise<RedemptionOutcome> {
    const now = this.clock();
    const first = redemption.firstRefreshToken;
    const reply = await this.commands.call('consume code', () =>
      this.commands.acknowledgedScript<[0] | [1, string, 0 | 1] | [2, string]>(
        'redeemAuthorizationCode',
        [this.keys.code(code), this.keys.family(code.grantId), this.keys.grantUpstreamTokens(code.grantId)],
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
    await this.commands.call('revoke grant', () =>
      this.commands.acknowledgedScript(
        'revokeGrant',
        [this.keys.family(grantId), this.keys.grantUpstreamTokens(grantId)],
        [ttlSeconds * 1000],
      ),
    );
  }

  async revokeKnownGrant(grantId: string, ttlSeconds: number): Promise<boolean> {
    const keys = [this.keys.family(grantId), this.keys.indexedGrant(grantId), this.keys.grantUpstreamTokens(grantId)];
    return (
      (await this.commands.call('revoke known grant', () =>
        this.commands.acknowledgedScript('revokeKnownGrant', keys, [ttlSeconds * 1000]),
      )) === 1
    );
  }

  async isGrantRevoked(grantId: string): Promise<boolean> {
    return (await this.commands.call('read grant', () => this.commands.client.hget(this.keys.family(grantId), 'revoked'))) === '1';
  }

  async denylistAccessToken(jti: string, ttlSeconds: number): Promise<void> {
    const key = this.keys.deniedAccessToken(jti);
    const ttl = Math.max(1, ttlSeconds);
    await this.commands.call('denylist access token', () => this.commands.acknowledgedSet(key, '1', 'EX', ttl, false));
  }

  async isAccessTokenDenylisted(jti: string): Promise<boolean> {
    return (await this.commands.call('read denylist', () => this.commands.client.exists(this.keys.deniedAccessToken(jti)))) === 1;
  }

  rememberDpopProof(jkt: string, jti: string, ttlSeconds: number): Promise<boolean> {
    return this.rememberOnce('remember dpop proof', this.keys.dpopProof(jkt, jti), ttlSeconds);
  }

  rememberClientAssertion(clientId: string, jti: string, ttlSeconds: number): Promise<boolean> {
    return this.rememberOnce('remember client assertion', this.keys.clientAssertion(clientId, jti), ttlSeconds);
  }

  /** One SET NX PX: the check and the record are one command, so a concurrent replay cannot pass both. */
  private async rememberOnce(operation: string, key: string, ttlSeconds: number): Promise<boolean> {
    const ttlMs = Math.max(1, ttlSeconds) * 1000;
    return (await this.commands.call(operation, () => this.commands.acknowledgedSet(key, '1', 'PX', ttlMs, true))) === 'OK';
  }

  /**
   * A write, not a PING: a Redis that answers but refuses writes (OOM at maxmemory, a
   * read-only replica, MISCONF after a failed save) cannot record codes or refresh
   * tokens, so it is not ready. The probe key expires on its own. On a cluster the probe
   * reaches one slot, so every primary is asked too (see clusterIsServing).
   */
  async ping(): Promise<void> {
    const reply = await this.commands.call('readiness write', () =>
      this.commands.client.set(this.readinessKey, '1', 'PX', READINESS_PROBE_TTL_MS),
    );
    if (reply !== 'OK') throw new StoreUnavailableError('redis readiness write not acknowledged');
    // With REDIS_MIN_REPLICAS_ACK, single-use writes go through their own connection followed
    // by WAIT: ready means that path works too (after a failover it reconnects on its own time).
    if (this.commands.acknowledgesWrites) {
      const acknowledged = await this.commands.call('readiness write acknowledged by replicas', () =>
        this.commands.acknowledgedSet(this.readinessKey, '1', 'PX', READINESS_PROBE_TTL_MS, false),
      );
      if (acknowledged !== 'OK') throw new StoreUnavailableError('redis readiness write not acknowledged by replicas');
    }
    const cluster = this.commands.client;
    if (cluster instanceof Cluster) await this.commands.call('cluster state', () => clusterIsServing(cluster));
  }

  close(): Promise<void> {
    return this.commands.close();
  }
}

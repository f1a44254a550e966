import { createHash, randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import type { Clock } from '../clock.js';
import { StoreUnavailableError } from '../errors.js';
import {
  CONSUME_RECORD,
  CREATE_RECORD,
  CREATE_REFRESH_FAMILY,
  READ_REFRESH_TOKEN,
  RELEASE_ATTEMPT,
  RESERVE_ATTEMPT,
  REVOKE_GRANT,
  ROTATE_REFRESH_TOKEN,
} from './lua.js';
import type {
  AttemptReservation,
  AuthorizationCodeRecord,
  ConsumeOutcome,
  OpaqueTokenRef,
  RefreshFamilyRecord,
  RefreshLifetimes,
  RefreshTokenView,
  RotationOutcome,
  Store,
} from './types.js';
import { secondsLeft } from './window.js';

export interface RedisStoreOptions {
  readonly url: string;
  /** Prefix of every key, e.g. `oauth:`. */
  readonly keyPrefix: string;
  /** Upper bound of every command, so a dead or hung Redis fails fast. */
  readonly commandTimeoutMs: number;
  readonly clock?: Clock;
}

interface ScriptCommands {
  createRecord(key: string, json: string, ttlMs: number): Promise<number>;
  consumeRecord(key: string, nowMs: number): Promise<[0] | [1 | 2, string]>;
  createRefreshFamily(
    familyKey: string,
    tokenKey: string,
    json: string,
    digest: string,
    nowMs: number,
    familyTtlMs: number,
    idleTtlMs: number,
  ): Promise<number>;
  revokeGrant(familyKey: string, ttlMs: number): Promise<number>;
  reserveAttempt(key: string, limit: number, windowMs: number): Promise<[0 | 1, number]>;
  releaseAttempt(key: string): Promise<number>;
  readRefreshToken(familyKey: string, tokenKey: string, digest: string): Promise<[] | [string, RefreshTokenView['state'], string, number]>;
  rotateRefreshToken(
    familyKey: string,
    presentedKey: string,
    successorKey: string,
    graceKey: string,
    nowMs: number,
    presentedDigest: string,
    successorDigest: string,
    idleMs: number,
    graceMs: number,
    sealed: string,
  ): Promise<[0 | 1 | 3] | [2, string]>;
}

type ScriptedRedis = Redis & ScriptCommands;

const READINESS_PROBE_TTL_MS = 5000;

/**
 * Keys, each with a TTL:
 *   <prefix>{<grantId>}:code:<digest>   authorization code (hash: data, used)
 *   <prefix>{<grantId>}:family          refresh family (hash: data, current, revoked)
 *   <prefix>{<grantId>}:rt:<digest>     refresh token (hash: issued_at, rotated_at, successor, grace_used)
 *   <prefix>{<grantId>}:grace:<digest>  sealed successor response of a just-rotated token
 *   <prefix>jti:<jti>                   denylisted access token
 *   <prefix>attempts:{<digest>}         sign-in attempt counter (its own hash tag)
 *   <prefix>{readyz}:<instance>         readiness probe (5 s), one per process
 * The `{grantId}` hash tag puts every key of one grant in one Cluster slot, so the
 * multi-key scripts run on Redis Cluster.
 */
export class RedisStore implements Store {
  readonly kind = 'redis';
  private readonly redis: ScriptedRedis;
  private readonly clock: Clock;
  private readonly readinessKey: string;

  constructor(private readonly options: RedisStoreOptions) {
    this.clock = options.clock ?? Date.now;
    this.readinessKey = `${options.keyPrefix}{readyz}:${randomBytes(8).toString('hex')}`;
    this.redis = new Redis(options.url, {
      lazyConnect: true,
      // Fail fast instead of queueing while disconnected: no request waits on a dead Redis.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: options.commandTimeoutMs,
      connectTimeout: Math.max(options.commandTimeoutMs, 1000),
      retryStrategy: (attempt) => Math.min(attempt * 100, 2000),
    }) as ScriptedRedis;
    this.redis.on('error', () => {
      // Connection errors surface as rejected commands; the event must have a listener.
    });
    this.redis.defineCommand('createRecord', { numberOfKeys: 1, lua: CREATE_RECORD });
    this.redis.defineCommand('consumeRecord', { numberOfKeys: 1, lua: CONSUME_RECORD });
    this.redis.defineCommand('createRefreshFamily', { numberOfKeys: 2, lua: CREATE_REFRESH_FAMILY });
    this.redis.defineCommand('revokeGrant', { numberOfKeys: 1, lua: REVOKE_GRANT });
    this.redis.defineCommand('reserveAttempt', { numberOfKeys: 1, lua: RESERVE_ATTEMPT });
    this.redis.defineCommand('releaseAttempt', { numberOfKeys: 1, lua: RELEASE_ATTEMPT });
    this.redis.defineCommand('readRefreshToken', { numberOfKeys: 2, lua: READ_REFRESH_TOKEN });
    this.redis.defineCommand('rotateRefreshToken', { numberOfKeys: 4, lua: ROTATE_REFRESH_TOKEN });
  }

  /** Opens the connection; rejects with StoreUnavailableError if Redis cannot be reached. */
  async connect(): Promise<void> {
    await this.call('connect', () => this.redis.connect());
  }

  async saveAuthorizationCode(code: OpaqueTokenRef, record: AuthorizationCodeRecord, ttlSeconds: number): Promise<void> {
    const created = await this.call('create code', () =>
      this.redis.createRecord(this.codeKey(code), JSON.stringify(record), ttlSeconds * 1000),
    );
    if (created !== 1) throw new StoreUnavailableError('authorization code already exists');
  }

  async consumeAuthorizationCode(code: OpaqueTokenRef): Promise<ConsumeOutcome<AuthorizationCodeRecord>> {
    const reply = await this.call('consume code', () => this.redis.consumeRecord(this.codeKey(code), this.clock()));
    if (reply[0] === 0) return { status: 'not_found' };
    const record = JSON.parse(reply[1]) as AuthorizationCodeRecord;
    return reply[0] === 1 ? { status: 'consumed', record } : { status: 'replayed', record };
  }

  async createRefreshFamily(
    grantId: string,
    family: RefreshFamilyRecord,
    firstToken: OpaqueTokenRef,
    lifetimes: RefreshLifetimes,
  ): Promise<boolean> {
    const created = await this.call('create refresh family', () =>
      this.redis.createRefreshFamily(
        this.familyKey(grantId),
        this.refreshKey(firstToken),
        JSON.stringify(family),
        firstToken.digest,
        this.clock(),
        lifetimes.absoluteSeconds * 1000,
        lifetimes.idleSeconds * 1000,
      ),
    );
    return created === 1;
  }

  async revokeGrant(grantId: string, ttlSeconds: number): Promise<void> {
    await this.call('revoke grant', () => this.redis.revokeGrant(this.familyKey(grantId), ttlSeconds * 1000));
  }

  async isGrantRevoked(grantId: string): Promise<boolean> {
    return (await this.call('read grant', () => this.redis.hget(this.familyKey(grantId), 'revoked'))) === '1';
  }

  async readRefreshToken(token: OpaqueTokenRef): Promise<RefreshTokenView | undefined> {
    const reply = await this.call('read refresh token', () =>
      this.redis.readRefreshToken(this.familyKey(token.grantId), this.refreshKey(token), token.digest),
    );
    if (reply.length === 0) return undefined;
    const [data, state, issuedAt, ttlMs] = reply;
    return { family: JSON.parse(data) as RefreshFamilyRecord, state, issuedAt: Number(issuedAt), expiresAt: this.clock() + ttlMs };
  }

  async rotateRefreshToken(
    presented: OpaqueTokenRef,
    successor: OpaqueTokenRef,
    sealedResponse: string,
    options: { idleSeconds: number; graceSeconds: number },
  ): Promise<RotationOutcome> {
    const reply = await this.call('rotate refresh token', () =>
      this.redis.rotateRefreshToken(
        this.familyKey(presented.grantId),
        this.refreshKey(presented),
        this.refreshKey(successor),
        `${this.options.keyPrefix}{${presented.grantId}}:grace:${presented.digest}`,
        this.clock(),
        presented.digest,
        successor.digest,
        options.idleSeconds * 1000,
        options.graceSeconds * 1000,
        sealedResponse,
      ),
    );
    switch (reply[0]) {
      case 1:
        return { status: 'rotated' };
      case 2:
        return { status: 'grace', sealedResponse: reply[1] };
      case 3:
        return { status: 'reused' };
      default:
        return { status: 'invalid' };
    }
  }

  async denylistAccessToken(jti: string, ttlSeconds: number): Promise<void> {
    await this.call('denylist access token', () => this.redis.set(this.jtiKey(jti), '1', 'EX', Math.max(1, ttlSeconds)));
  }

  async isAccessTokenDenylisted(jti: string): Promise<boolean> {
    return (await this.call('read denylist', () => this.redis.exists(this.jtiKey(jti)))) === 1;
  }

  async reserveAttempt(key: string, limit: number, windowSeconds: number): Promise<AttemptReservation> {
    const [reserved, ttlMs] = await this.call('reserve attempt', () =>
      this.redis.reserveAttempt(this.attemptKey(key), limit, windowSeconds * 1000),
    );
    return reserved === 1 ? { reserved: true } : { reserved: false, retryAfterSeconds: secondsLeft(ttlMs) };
  }

  async releaseAttempt(key: string): Promise<void> {
    await this.call('release attempt', () => this.redis.releaseAttempt(this.attemptKey(key)));
  }

  async clearAttempts(key: string): Promise<void> {
    await this.call('clear attempts', () => this.redis.del(this.attemptKey(key)));
  }

  /**
   * A write, not a PING: a Redis that answers but refuses writes (OOM at maxmemory, a
   * read-only replica, MISCONF after a failed save) cannot record codes or refresh
   * tokens, so it is not ready. The probe key expires on its own.
   */
  async ping(): Promise<void> {
    const reply = await this.call('readiness write', () => this.redis.set(this.readinessKey, '1', 'PX', READINESS_PROBE_TTL_MS));
    if (reply !== 'OK') throw new StoreUnavailableError('redis readiness write not acknowledged');
  }

  async close(): Promise<void> {
    try {
      await this.redis.quit();
    } catch {
      this.redis.disconnect();
    }
  }

  private codeKey(ref: OpaqueTokenRef): string {
    return `${this.options.keyPrefix}{${ref.grantId}}:code:${ref.digest}`;
  }

  private familyKey(grantId: string): string {
    return `${this.options.keyPrefix}{${grantId}}:family`;
  }

  private refreshKey(ref: OpaqueTokenRef): string {
    return `${this.options.keyPrefix}{${ref.grantId}}:rt:${ref.digest}`;
  }

  private jtiKey(jti: string): string {
    return `${this.options.keyPrefix}jti:${jti}`;
  }

  /**
   * Counter keys hold a digest, so usernames and addresses do not sit in Redis in clear;
   * each counter is its own hash tag, so counters spread over a Cluster's slots.
   */
  private attemptKey(key: string): string {
    return `${this.options.keyPrefix}attempts:{${createHash('sha256').update(key).digest('base64url')}}`;
  }

  private async call<T>(operation: string, command: () => Promise<T>): Promise<T> {
    try {
      return await command();
    } catch (err) {
      throw new StoreUnavailableError(`redis ${operation} failed: ${(err as Error).message}`, { cause: err });
    }
  }
}

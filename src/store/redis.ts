import { Redis } from 'ioredis';
import { StoreUnavailableError } from '../errors.js';
import type { OpaqueTokenRef } from '../tokens/opaque.js';
import { CONSUME_RECORD, CREATE_RECORD } from './lua.js';
import type { AuthorizationCodeRecord, ConsumeOutcome, Store } from './types.js';

export interface RedisStoreOptions {
  readonly url: string;
  /** Prefix of every key, e.g. `oauth:`. */
  readonly keyPrefix: string;
  /** Upper bound of every command, so a dead or hung Redis fails fast. */
  readonly commandTimeoutMs: number;
  readonly clock?: () => number;
}

interface ScriptCommands {
  createRecord(key: string, json: string, ttlMs: number): Promise<number>;
  consumeRecord(key: string, nowMs: number): Promise<[0] | [1 | 2, string]>;
}

type ScriptedRedis = Redis & ScriptCommands;

/**
 * Keys: `<prefix>{<grantId>}:code:<sha256 of the code>`. The `{grantId}` hash tag puts
 * every key of one grant in one Cluster slot; every key carries a TTL.
 */
export class RedisStore implements Store {
  readonly kind = 'redis';
  private readonly redis: ScriptedRedis;
  private readonly clock: () => number;

  constructor(private readonly options: RedisStoreOptions) {
    this.clock = options.clock ?? Date.now;
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

  async ping(): Promise<void> {
    await this.call('ping', () => this.redis.ping());
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

  private async call<T>(operation: string, command: () => Promise<T>): Promise<T> {
    try {
      return await command();
    } catch (err) {
      throw new StoreUnavailableError(`redis ${operation} failed: ${(err as Error).message}`, { cause: err });
    }
  }
}

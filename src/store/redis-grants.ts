import type { Clock } from '../clock.js';
import type { RedisClient } from './redis-connection.js';
import type { RedisKeys } from './redis-keys.js';
import type { ConsentStore, GrantIndex, GrantOwner, IndexedGrant, RememberedConsent } from './types.js';

/** What RedisStore lends the grant indexes and consents: its client, key layout, clock, bounded calls and scripts. */
export interface GrantCommands {
  readonly client: RedisClient;
  readonly keys: RedisKeys;
  readonly clock: Clock;
  /** Runs one operation within the command timeout; any failure becomes StoreUnavailableError. */
  call<T>(operation: string, command: () => Promise<T>): Promise<T>;
  /** INDEX_GRANT (src/store/lua.ts). */
  indexGrant(key: string, member: string, expiresAt: number, now: number): Promise<unknown>;
  /** LIST_GRANTS: `[member, expiry, ...]`. */
  listGrants(key: string, now: number): Promise<string[]>;
  /** REMEMBER_CONSENT. */
  rememberConsent(key: string, clientId: string, consent: string, expiresAt: number, now: number): Promise<unknown>;
}

/** The sorted-set member of a grant: the same JSON for the same grant, so ZADD GT raises its expiry in place. */
const memberOf = (grant: IndexedGrant) => JSON.stringify([grant.grantId, grant.sub, grant.clientId]);

/**
 * Grant indexes in Redis: a sorted set per user (`{sub:<digest>}:grants`) and per client
 * (`{client:<digest>}:grants`), scored by expiry. Each script touches one key, so one slot:
 * a grant's two index entries are two writes, made before the grant's own keys exist.
 */
export class RedisGrantIndex implements GrantIndex {
  constructor(private readonly redis: GrantCommands) {}

  async indexGrant(grant: IndexedGrant): Promise<void> {
    const now = this.redis.clock();
    const member = memberOf(grant);
    await this.redis.call('index grant', () =>
      Promise.all(
        [this.redis.keys.userGrants(grant.sub), this.redis.keys.clientGrants(grant.clientId)].map((key) =>
          this.redis.indexGrant(key, member, grant.expiresAt, now),
        ),
      ),
    );
  }

  async listGrants(owner: GrantOwner): Promise<IndexedGrant[]> {
    const key = 'sub' in owner ? this.redis.keys.userGrants(owner.sub) : this.redis.keys.clientGrants(owner.clientId);
    const reply = await this.redis.call('list grants', () => this.redis.listGrants(key, this.redis.clock()));
    const grants: IndexedGrant[] = [];
    for (let i = 0; i + 1 < reply.length; i += 2) {
      const [grantId, sub, clientId] = JSON.parse(reply[i] as string) as [string, string, string];
      grants.push({ grantId, sub, clientId, expiresAt: Number(reply[i + 1]) });
    }
    return grants;
  }

  async unindexGrants(grants: readonly IndexedGrant[]): Promise<void> {
    const members = new Map<string, string[]>();
    for (const grant of grants) {
      for (const key of [this.redis.keys.userGrants(grant.sub), this.redis.keys.clientGrants(grant.clientId)]) {
        members.set(key, [...(members.get(key) ?? []), memberOf(grant)]);
      }
    }
    await this.redis.call('unindex grants', () => Promise.all([...members].map(([key, list]) => this.redis.client.zrem(key, ...list))));
  }
}

/**
 * Remembered consent in Redis: one hash per user (`{sub:<digest>}:consents`), a field per
 * client holding "<expiry ms> <JSON>"; the hash lives as long as its latest consent.
 */
export class RedisConsents implements ConsentStore {
  constructor(private readonly redis: GrantCommands) {}

  async rememberConsent(sub: string, clientId: string, consent: RememberedConsent, ttlSeconds: number): Promise<void> {
    const now = this.redis.clock();
    const value = JSON.stringify({ scope: consent.scope, audiences: consent.audiences });
    await this.redis.call('remember consent', () =>
      this.redis.rememberConsent(this.redis.keys.userConsents(sub), clientId, value, now + ttlSeconds * 1000, now),
    );
  }

  async findConsent(sub: string, clientId: string): Promise<RememberedConsent | undefined> {
    const value = await this.redis.call('read consent', () => this.redis.client.hget(this.redis.keys.userConsents(sub), clientId));
    if (!value) return undefined;
    const space = value.indexOf(' ');
    if (Number(value.slice(0, space)) <= this.redis.clock()) return undefined;
    const consent = JSON.parse(value.slice(space + 1)) as Partial<RememberedConsent>;
    // Written before consents named their audiences: it may not cover ACCESS_TOKEN_AUDIENCE.
    if (!Array.isArray(consent.audiences) || !Array.isArray(consent.scope)) return undefined;
    return { scope: consent.scope, audiences: consent.audiences };
  }

  async forgetConsent(sub: string, clientId?: string): Promise<void> {
    const key = this.redis.keys.userConsents(sub);
    await this.redis.call('forget consent', () =>
      clientId === undefined ? this.redis.client.del(key) : this.redis.client.hdel(key, clientId),
    );
  }
}

import type { Clock } from '../clock.js';
import type { RedisClient } from './redis-connection.js';
import type { RedisKeys } from './redis-keys.js';
import type { ScriptArgument, ScriptName } from './redis-scripts.js';
import type { ConsentStore, GrantIndex, GrantOwner, IndexedGrant, RememberedConsent } from './types.js';

/** What RedisStore lends the grant indexes and consents: its client, key layout, clock, bounded calls and scripts. */
export interface GrantCommands {
  readonly client: RedisClient;
  readonly keys: RedisKeys;
  readonly clock: Clock;
  /** Runs one operation within the command timeout; any failure becomes StoreUnavailableError. */
  call<T>(operation: string, command: () => Promise<T>): Promise<T>;
  /** One of SCRIPTS (src/store/lua.ts): INDEX_GRANT, LIST_GRANTS, UNLIST_UNCHANGED, MARK_INDEXED_GRANT, REMEMBER_CONSENT. */
  script<T>(name: ScriptName, keys: string[], args: ScriptArgument[]): Promise<T>;
}

/** The entries of an index as LIST_GRANTS returns them (`[member, expiry, ...]`), expiries as numbers. */
function entriesOf(reply: string[]): [member: string, expiresAt: number][] {
  const entries: [string, number][] = [];
  for (let i = 0; i + 1 < reply.length; i += 2) entries.push([reply[i] as string, Number(reply[i + 1])]);
  return entries;
}

/** How many users' consents one round of forgetting a client's consents reaches. */
export const FORGET_BATCH = 500;

/**
 * The sorted-set member of a grant: the same JSON for the same grant (its details are fixed
 * when it is made), so ZADD GT raises its expiry in place. Members written before grants
 * had details are the first three elements alone, and read back as they were written.
 */
function memberOf({ grantId, sub, clientId, details }: IndexedGrant): string {
  if (details === undefined) return JSON.stringify([grantId, sub, clientId]);
  return JSON.stringify([grantId, sub, clientId, details.grantedAt, details.scope, details.resources]);
}

function grantOf(member: string, expiresAt: number): IndexedGrant {
  const [grantId, sub, clientId, grantedAt, scope, resources] = JSON.parse(member) as [
    string,
    string,
    string,
    number?,
    string[]?,
    string[]?,
  ];
  if (grantedAt === undefined || scope === undefined || resources === undefined) return { grantId, sub, clientId, expiresAt };
  return { grantId, sub, clientId, expiresAt, details: { grantedAt, scope, resources } };
}

const keyOf = (keys: RedisKeys, owner: GrantOwner) => ('sub' in owner ? keys.userGrants(owner.sub) : keys.clientGrants(owner.clientId));

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
    const indexes = [this.redis.keys.userGrants(grant.sub), this.redis.keys.clientGrants(grant.clientId)];
    await this.redis.call('index grant', () =>
      Promise.all([
        ...indexes.map((key) => this.redis.script('indexGrant', [key], [member, grant.expiresAt, now])),
        this.redis.script('markIndexedGrant', [this.redis.keys.indexedGrant(grant.grantId)], [grant.expiresAt - now]),
      ]),
    );
  }

  async listGrants(owner: GrantOwner): Promise<IndexedGrant[]> {
    const key = keyOf(this.redis.keys, owner);
    const reply = await this.redis.call('list grants', () => this.redis.script<string[]>('listGrants', [key], [this.redis.clock()]));
    return entriesOf(reply).map(([member, expiresAt]) => grantOf(member, expiresAt));
  }

  async countGrants(owner: GrantOwner): Promise<number> {
    const key = keyOf(this.redis.keys, owner);
    return this.redis.call('count grants', () => this.redis.client.zcount(key, `(${this.redis.clock()}`, '+inf'));
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
 * client holding "<expiry ms> <JSON>"; the hash lives as long as its latest consent. Each
 * client lists its consenting users (`{client:<digest>}:consents`, an index like the
 * grants'), written first: a crash in between leaves a user listed without a consent
 * (harmless), never a consent its client does not list.
 */
export class RedisConsents implements ConsentStore {
  constructor(private readonly redis: GrantCommands) {}

  async rememberConsent(sub: string, clientId: string, consent: RememberedConsent, ttlSeconds: number): Promise<void> {
    const now = this.redis.clock();
    const expiresAt = now + ttlSeconds * 1000;
    const value = JSON.stringify({ scope: consent.scope, audiences: consent.audiences });
    await this.redis.call('remember consent', async () => {
      await this.redis.script('indexGrant', [this.redis.keys.clientConsents(clientId)], [sub, expiresAt, now]);
      await this.redis.script('rememberConsent', [this.redis.keys.userConsents(sub)], [clientId, value, expiresAt, now]);
    });
  }

  async findConsent(sub: string, clientId: string): Promise<RememberedConsent | undefined> {
    const value = await this.redis.call('read consent', () => this.redis.client.hget(this.redis.keys.userConsents(sub), clientId));
    if (!value) return undefined;
    const space = value.indexOf(' ');
    if (Number(value.slice(0, space)) <= this.redis.clock()) return undefined;
    const consent = JSON.parse(value.slice(space + 1)) as Partial<RememberedConsent>;
    // Written before consents named their audiences: it may not cover ACCESS_TOKEN_AUDIENCE,
    // and its client does not list it (so `grants revoke --client` could not forget it).
    if (!Array.isArray(consent.audiences) || !Array.isArray(consent.scope)) return undefined;
    return { scope: consent.scope, audiences: consent.audiences };
  }

  async forgetConsent(sub: string, clientId?: string): Promise<void> {
    const key = this.redis.keys.userConsents(sub);
    await this.redis.call('forget consent', () =>
      clientId === undefined ? this.redis.client.del(key) : this.redis.client.hdel(key, clientId),
    );
  }

  /** The users the client lists, in batches (each within the command timeout): their consents, then their entries. */
  async forgetConsentsToClient(clientId: string): Promise<void> {
    const index = this.redis.keys.clientConsents(clientId);
    const listed = entriesOf(
      await this.redis.call('list consents', () => this.redis.script<string[]>('listGrants', [index], [this.redis.clock()])),
    );
    for (let start = 0; start < listed.length; start += FORGET_BATCH) {
      const batch = listed.slice(start, start + FORGET_BATCH);
      await this.redis.call('forget consents', () =>
        Promise.all(batch.map(([sub]) => this.redis.client.hdel(this.redis.keys.userConsents(sub), clientId))),
      );
      await this.redis.call('unlist consents', () => this.redis.script('unlistUnchanged', [index], batch.flat()));
    }
  }
}

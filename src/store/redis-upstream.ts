import { z } from 'zod';
import type { RedisClient } from './redis-connection.js';
import { type ListedMember, type ListingCommands, RedisListing } from './redis-listings.js';
import type { FederatedUser, FederatedUserPage, TakenUpstreamSignIn, UpstreamStore, UpstreamTokenHolder } from './upstream-types.js';

/** What the `{federated}` listing says of a user beside their sub (a version that wrote other details lists them without). */
const DETAILS = z.object({ provider: z.string(), last_sign_in_at: z.number() });

function federatedUser(listed: ListedMember): FederatedUser {
  const details = DETAILS.safeParse(JSON.parse(listed.details ?? 'null'));
  const { provider, last_sign_in_at: lastSignInAt } = details.success ? details.data : { provider: '', last_sign_in_at: 0 };
  return { sub: listed.member, provider, lastSignInAt, expiresAt: listed.expiresAt };
}

/**
 * UpstreamStore on Redis. A sign-in in progress is one key under its state's digest, its
 * value `<binding>.<sealed>`, taken by one script that checks the binding first (one
 * callback of the right browser wins; another browser's leaves it); a profile sits with the user's other keys
 * (`{sub:<digest>}`), listed in `{federated}` first (provider and last sign-in); a grant's upstream tokens sit with the grant (`{grantId}`), so the
 * scripts of src/store/lua-upstream.ts check its revocation mark in the same step.
 */
export class RedisUpstream implements UpstreamStore {
  private readonly listing: RedisListing;

  constructor(
    private readonly redis: ListingCommands,
    private readonly client: RedisClient,
  ) {
    this.listing = new RedisListing(redis, 'federated');
  }

  async saveUpstreamSignIn(stateDigest: string, binding: string, sealed: string, ttlSeconds: number): Promise<void> {
    const key = this.redis.keys.upstreamSignIn(stateDigest);
    await this.redis.call('save upstream sign-in', () => this.client.set(key, `${binding}.${sealed}`, 'PX', ttlSeconds * 1000));
  }

  async takeUpstreamSignIn(stateDigest: string, binding: string): Promise<TakenUpstreamSignIn> {
    const key = this.redis.keys.upstreamSignIn(stateDigest);
    const reply = await this.redis.call('take upstream sign-in', () =>
      this.redis.script<string | number | null>('takeUpstreamSignIn', [key], [binding]),
    );
    if (typeof reply === 'string') return { sealed: reply };
    return reply === null ? 'unknown' : 'elsewhere';
  }

  async saveFederatedProfile(sub: string, profile: Readonly<Record<string, unknown>>, ttlSeconds: number, provider: string): Promise<void> {
    const now = this.redis.clock();
    const details = JSON.stringify({ provider, last_sign_in_at: Math.floor(now / 1000) });
    await this.listing.list(sub, now + ttlSeconds * 1000, details);
    const key = this.redis.keys.federatedProfile(sub);
    await this.redis.call('save federated profile', () => this.client.set(key, JSON.stringify(profile), 'PX', ttlSeconds * 1000));
  }

  async findFederatedProfile(sub: string): Promise<Readonly<Record<string, unknown>> | undefined> {
    const value = await this.redis.call('read federated profile', () => this.client.get(this.redis.keys.federatedProfile(sub)));
    return value === null ? undefined : (JSON.parse(value) as Record<string, unknown>);
  }

  async listFederatedUsers(page: { readonly after?: string | undefined; readonly limit: number }): Promise<FederatedUserPage> {
    const listed = await this.listing.page(page.after, page.limit);
    const users = listed.members.map(federatedUser);
    return listed.next === undefined ? { users } : { users, next: listed.next };
  }

  countFederatedUsers(): Promise<number> {
    return this.listing.count();
  }

  async findFederatedUser(sub: string): Promise<FederatedUser | undefined> {
    const listed = await this.listing.read(sub);
    return listed && federatedUser(listed);
  }

  async saveUpstreamTokens(holder: UpstreamTokenHolder, sealed: string, ttlSeconds: number | 'keep'): Promise<boolean> {
    if ('grantId' in holder) {
      const keys = [this.redis.keys.family(holder.grantId), this.redis.keys.grantUpstreamTokens(holder.grantId)];
      const ttl = ttlSeconds === 'keep' ? '' : ttlSeconds * 1000;
      return (await this.redis.call('save upstream tokens', () => this.redis.script('saveGrantUpstreamTokens', keys, [sealed, ttl]))) === 1;
    }
    const key = this.redis.keys.sessionUpstreamTokens(holder.sessionId);
    const reply = await this.redis.call('save upstream tokens', () =>
      ttlSeconds === 'keep' ? this.client.set(key, sealed, 'KEEPTTL', 'XX') : this.client.set(key, sealed, 'PX', ttlSeconds * 1000),
    );
    return reply === 'OK';
  }

  async findUpstreamTokens(holder: UpstreamTokenHolder): Promise<string | undefined> {
    if ('grantId' in holder) {
      const keys = [this.redis.keys.family(holder.grantId), this.redis.keys.grantUpstreamTokens(holder.grantId)];
      const reply = await this.redis.call('read upstream tokens', () =>
        this.redis.script<string | null>('findGrantUpstreamTokens', keys, []),
      );
      return reply ?? undefined;
    }
    const key = this.redis.keys.sessionUpstreamTokens(holder.sessionId);
    return (await this.redis.call('read upstream tokens', () => this.client.get(key))) ?? undefined;
  }

  async deleteUpstreamTokens(holder: UpstreamTokenHolder): Promise<void> {
    const key =
      'grantId' in holder ? this.redis.keys.grantUpstreamTokens(holder.grantId) : this.redis.keys.sessionUpstreamTokens(holder.sessionId);
    await this.redis.call('delete upstream tokens', () => this.client.del(key));
  }
}

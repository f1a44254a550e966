import type { RedisClient } from './redis-connection.js';
import type { ListingName } from './redis-keys.js';
import type { ScriptCommands } from './redis-scripts.js';

/**
 * A listing on Redis (src/store/lua-listings.ts): the members of records that live in keys
 * of their own, paged in byte order, each dropped when its expiry passes. One script per
 * step, on the listing's three keys (one slot); counted by one ZCOUNT.
 */

/** What a listing runs its commands on: the scripts, and the client for the one plain command (the count). */
export interface ListingCommands extends ScriptCommands {
  readonly client: Pick<RedisClient, 'zcount'>;
}

export interface ListedMember {
  readonly member: string;
  /** When the record expires (ms since the epoch). */
  readonly expiresAt: number;
  /** The details listed with it; undefined when none were. */
  readonly details: string | undefined;
}

export interface MemberPage {
  readonly members: ListedMember[];
  /** The last member of this page, when another page may follow. */
  readonly next?: string;
}

export class RedisListing {
  constructor(
    private readonly redis: ListingCommands,
    private readonly name: ListingName,
  ) {}

  private get keys(): string[] {
    return this.redis.keys.listing(this.name);
  }

  /** Lists `member` until `expiresAt` (raised, never lowered), with `details` (undefined keeps those listed). */
  async list(member: string, expiresAt: number, details?: string): Promise<void> {
    const args = [member, expiresAt, this.redis.clock(), details ?? ''];
    await this.redis.call(`list in ${this.name}`, () => this.redis.script('listMember', this.keys, args));
  }

  async unlist(member: string): Promise<void> {
    await this.redis.call(`unlist from ${this.name}`, () => this.redis.script('unlistMember', this.keys, [member]));
  }

  async page(after: string | undefined, limit: number): Promise<MemberPage> {
    const [members, expiries, details] = await this.redis.call(`page through ${this.name}`, () =>
      this.redis.script<[string[], string[], string[]]>('pageMembers', this.keys, [this.redis.clock(), after ?? '', limit]),
    );
    const listed = members.map((member, i) => ({
      member,
      expiresAt: Number(expiries[i]),
      details: details[i] === '' ? undefined : details[i],
    }));
    const page = listed.slice(0, limit);
    const last = page[page.length - 1];
    return listed.length > limit && last ? { members: page, next: last.member } : { members: page };
  }

  /**
   * The unexpired members: one ZCOUNT of the expiries after now, O(log n), pruning nothing.
   * A member listed without its record (a write between the two failed) counts until it expires.
   */
  async count(): Promise<number> {
    const expiries = this.keys[1] as string;
    return this.redis.call(`count ${this.name}`, () => this.redis.client.zcount(expiries, `(${this.redis.clock()}`, '+inf'));
  }

  async read(member: string): Promise<ListedMember | undefined> {
    const reply = await this.redis.call(`read from ${this.name}`, () =>
      this.redis.script<[] | [string, string]>('readMember', this.keys.slice(1), [member, this.redis.clock()]),
    );
    if (reply.length === 0) return undefined;
    return { member, expiresAt: Number(reply[0]), details: reply[1] === '' ? undefined : reply[1] };
  }
}

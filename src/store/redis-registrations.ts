import type { Clock } from '../clock.js';
import type { RedisClient } from './redis-connection.js';
import type { RedisKeys } from './redis-keys.js';
import type { RedisListing } from './redis-listings.js';
import type { ClientRegistrationRecord, ClientRegistrationStore, RegistrationPage, StoredClientRegistration } from './types.js';

/** What RedisStore lends the registrations: its client, key layout, clock, bounded calls, the read script and the listing. */
export interface RegistrationCommands {
  readonly client: RedisClient;
  readonly keys: RedisKeys;
  readonly clock: Clock;
  /** Runs one operation within the command timeout; any failure becomes StoreUnavailableError. */
  call<T>(operation: string, command: () => Promise<T>): Promise<T>;
  /** READ_CLIENT_REGISTRATION (src/store/lua.ts): `[]` or `[record JSON, TTL in ms]`. */
  readClientRegistration(key: string): Promise<[] | [string, number]>;
  /** The `{registrations}` listing (src/store/lua-listings.ts): the admin API pages through it. */
  readonly listing: RedisListing;
}

/**
 * Registered clients in Redis: one key per client, `<prefix>client:{<client_id>}`, holding
 * the JSON record (metadata and digests, never a secret). The client id is the key's own
 * hash tag, so registrations spread over a Cluster's slots. Every key has a TTL, restarted
 * by replace and touch; each operation is a single command (or one script), so atomic.
 * Each is listed too (`{registrations}`, its own slot), by a write made first and raised with
 * every expiry: a failure in between leaves an id listed without a record (skipped when
 * listed), never a record the listing lost.
 */
export class RedisClientRegistrations implements ClientRegistrationStore {
  constructor(private readonly redis: RegistrationCommands) {}

  async createClientRegistration(record: ClientRegistrationRecord, ttlSeconds: number): Promise<boolean> {
    await this.redis.listing.list(record.clientId, this.expiry(ttlSeconds));
    // NX: a registration is never overwritten, even by a colliding id.
    const reply = await this.redis.call('create client registration', () =>
      this.redis.client.set(this.key(record.clientId), JSON.stringify(record), 'PX', ttlSeconds * 1000, 'NX'),
    );
    return reply === 'OK';
  }

  async findClientRegistration(clientId: string): Promise<StoredClientRegistration | undefined> {
    const reply = await this.redis.call('read client registration', () => this.redis.readClientRegistration(this.key(clientId)));
    if (reply.length === 0) return undefined;
    return { record: JSON.parse(reply[0]) as ClientRegistrationRecord, expiresAt: this.redis.clock() + reply[1] };
  }

  async replaceClientRegistration(record: ClientRegistrationRecord, ttlSeconds: number): Promise<boolean> {
    await this.redis.listing.list(record.clientId, this.expiry(ttlSeconds));
    // XX: a registration deleted meanwhile is not brought back.
    const reply = await this.redis.call('replace client registration', () =>
      this.redis.client.set(this.key(record.clientId), JSON.stringify(record), 'PX', ttlSeconds * 1000, 'XX'),
    );
    return reply === 'OK';
  }

  async deleteClientRegistration(clientId: string): Promise<boolean> {
    const deleted = (await this.redis.call('delete client registration', () => this.redis.client.del(this.key(clientId)))) === 1;
    await this.redis.listing.unlist(clientId);
    return deleted;
  }

  async touchClientRegistration(clientId: string, ttlSeconds: number): Promise<boolean> {
    await this.redis.listing.list(clientId, this.expiry(ttlSeconds));
    const reply = await this.redis.call('touch client registration', () =>
      this.redis.client.pexpire(this.key(clientId), ttlSeconds * 1000),
    );
    return reply === 1;
  }

  async listClientRegistrations(page: { readonly after?: string | undefined; readonly limit: number }): Promise<RegistrationPage> {
    const registrations: StoredClientRegistration[] = [];
    let after = page.after;
    // Listed ids whose record is gone (deleted between the two writes) are skipped: read on until the page is full.
    for (;;) {
      const listed = await this.redis.listing.page(after, page.limit - registrations.length);
      const found = await Promise.all(listed.members.map(({ member }) => this.findClientRegistration(member)));
      for (const registration of found) if (registration) registrations.push(registration);
      after = listed.next;
      if (after === undefined) return { registrations };
      if (registrations.length === page.limit) return { registrations, next: after };
    }
  }

  countClientRegistrations(): Promise<number> {
    return this.redis.listing.count();
  }

  private expiry(ttlSeconds: number): number {
    return this.redis.clock() + ttlSeconds * 1000;
  }

  private key(clientId: string): string {
    return this.redis.keys.clientRegistration(clientId);
  }
}

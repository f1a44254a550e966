import type { Clock } from '../clock.js';
import type { RedisClient } from './redis-connection.js';
import type { RedisKeys } from './redis-keys.js';
import type { ClientRegistrationRecord, ClientRegistrationStore, StoredClientRegistration } from './types.js';

/** What RedisStore lends the registrations: its client, key layout, clock, bounded calls and the read script. */
export interface RegistrationCommands {
  readonly client: RedisClient;
  readonly keys: RedisKeys;
  readonly clock: Clock;
  /** Runs one operation within the command timeout; any failure becomes StoreUnavailableError. */
  call<T>(operation: string, command: () => Promise<T>): Promise<T>;
  /** READ_CLIENT_REGISTRATION (src/store/lua.ts): `[]` or `[record JSON, TTL in ms]`. */
  readClientRegistration(key: string): Promise<[] | [string, number]>;
}

/**
 * Registered clients in Redis: one key per client, `<prefix>client:{<client_id>}`, holding
 * the JSON record (metadata and digests, never a secret). The client id is the key's own
 * hash tag, so registrations spread over a Cluster's slots. Every key has a TTL, restarted
 * by replace and touch; each operation is a single command (or one script), so atomic.
 */
export class RedisClientRegistrations implements ClientRegistrationStore {
  constructor(private readonly redis: RegistrationCommands) {}

  async createClientRegistration(record: ClientRegistrationRecord, ttlSeconds: number): Promise<boolean> {
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
    // XX: a registration deleted meanwhile is not brought back.
    const reply = await this.redis.call('replace client registration', () =>
      this.redis.client.set(this.key(record.clientId), JSON.stringify(record), 'PX', ttlSeconds * 1000, 'XX'),
    );
    return reply === 'OK';
  }

  async deleteClientRegistration(clientId: string): Promise<boolean> {
    return (await this.redis.call('delete client registration', () => this.redis.client.del(this.key(clientId)))) === 1;
  }

  async touchClientRegistration(clientId: string, ttlSeconds: number): Promise<boolean> {
    const reply = await this.redis.call('touch client registration', () =>
      this.redis.client.pexpire(this.key(clientId), ttlSeconds * 1000),
    );
    return reply === 1;
  }

  private key(clientId: string): string {
    return this.redis.keys.clientRegistration(clientId);
  }
}

import type { Clock } from '../clock.js';
import type { ExpiringMap } from './expiring-map.js';
import type { ClientRegistrationRecord, ClientRegistrationStore, RegistrationPage, StoredClientRegistration } from './types.js';

export interface RegistrationEntry {
  record: ClientRegistrationRecord;
  expiresAt: number;
}

/** Registered clients in memory: each operation is one synchronous step, so it is atomic. */
export class MemoryClientRegistrations implements ClientRegistrationStore {
  constructor(
    private readonly entries: ExpiringMap<RegistrationEntry>,
    private readonly clock: Clock,
  ) {}

  async createClientRegistration(record: ClientRegistrationRecord, ttlSeconds: number): Promise<boolean> {
    if (this.entries.get(record.clientId)) return false;
    this.entries.set(record.clientId, { record, expiresAt: this.expiry(ttlSeconds) });
    return true;
  }

  async findClientRegistration(clientId: string): Promise<StoredClientRegistration | undefined> {
    const entry = this.entries.get(clientId);
    return entry ? { record: entry.record, expiresAt: entry.expiresAt } : undefined;
  }

  async replaceClientRegistration(record: ClientRegistrationRecord, ttlSeconds: number): Promise<boolean> {
    const entry = this.entries.get(record.clientId);
    if (!entry) return false;
    entry.record = record;
    entry.expiresAt = this.expiry(ttlSeconds);
    return true;
  }

  async deleteClientRegistration(clientId: string): Promise<boolean> {
    const existed = this.entries.get(clientId) !== undefined;
    this.entries.delete(clientId);
    return existed;
  }

  async touchClientRegistration(clientId: string, ttlSeconds: number): Promise<boolean> {
    const entry = this.entries.get(clientId);
    if (!entry) return false;
    entry.expiresAt = this.expiry(ttlSeconds);
    return true;
  }

  async listClientRegistrations(page: { readonly after?: string | undefined; readonly limit: number }): Promise<RegistrationPage> {
    const { after } = page;
    const rest = this.entries
      .live()
      .filter(([clientId]) => after === undefined || Buffer.compare(Buffer.from(clientId), Buffer.from(after)) > 0);
    const registrations = rest.slice(0, page.limit).map(([, entry]) => ({ record: entry.record, expiresAt: entry.expiresAt }));
    const last = registrations[registrations.length - 1];
    return rest.length > page.limit && last ? { registrations, next: last.record.clientId } : { registrations };
  }

  async countClientRegistrations(): Promise<number> {
    return this.entries.countLive();
  }

  private expiry(seconds: number): number {
    return this.clock() + seconds * 1000;
  }
}

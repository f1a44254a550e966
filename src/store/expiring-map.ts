import type { Clock } from '../clock.js';

export interface Expiring {
  expiresAt: number;
}

/** A map whose entries vanish at their expiry, as Redis keys with a TTL do. */
export class ExpiringMap<V extends Expiring> {
  private readonly entries = new Map<string, V>();

  constructor(private readonly clock: Clock) {}

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (entry && entry.expiresAt <= this.clock()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry;
  }

  set(key: string, value: V): void {
    this.entries.set(key, value);
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  /** The unexpired entries, by key in byte order (the admin API pages through them). */
  live(): [string, V][] {
    const now = this.clock();
    return [...this.entries]
      .filter(([, entry]) => entry.expiresAt > now)
      .sort(([a], [b]) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  }

  /** How many entries are unexpired: one pass, nothing sorted or copied. */
  countLive(): number {
    const now = this.clock();
    let live = 0;
    for (const entry of this.entries.values()) if (entry.expiresAt > now) live += 1;
    return live;
  }

  sweep(): void {
    const now = this.clock();
    for (const [key, entry] of this.entries) if (entry.expiresAt <= now) this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }
}

import type { OpaqueTokenRef } from '../tokens/opaque.js';
import type { AuthorizationCodeRecord, ConsumeOutcome, Store } from './types.js';

interface Entry<R> {
  readonly record: R;
  readonly expiresAt: number;
  used: boolean;
}

/**
 * The embedded default: single-process, lost on restart. JavaScript runs one call at
 * a time, so check-and-mark is atomic here without locks. Expired entries are
 * dropped on access and by a periodic sweep, so memory stays bounded.
 */
export class MemoryStore implements Store {
  readonly kind = 'memory';
  private readonly codes = new Map<string, Entry<AuthorizationCodeRecord>>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly clock: () => number = Date.now,
    sweepIntervalMs = 60_000,
  ) {
    this.sweeper = setInterval(() => this.sweep(), sweepIntervalMs);
    this.sweeper.unref();
  }

  async saveAuthorizationCode(code: OpaqueTokenRef, record: AuthorizationCodeRecord, ttlSeconds: number): Promise<void> {
    this.codes.set(keyOf(code), { record, expiresAt: this.clock() + ttlSeconds * 1000, used: false });
  }

  async consumeAuthorizationCode(code: OpaqueTokenRef): Promise<ConsumeOutcome<AuthorizationCodeRecord>> {
    const entry = this.live(this.codes, keyOf(code));
    if (!entry) return { status: 'not_found' };
    if (entry.used) return { status: 'replayed', record: entry.record };
    entry.used = true;
    return { status: 'consumed', record: entry.record };
  }

  async ping(): Promise<void> {}

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    this.codes.clear();
  }

  private live<R>(map: Map<string, Entry<R>>, key: string): Entry<R> | undefined {
    const entry = map.get(key);
    if (entry && entry.expiresAt <= this.clock()) {
      map.delete(key);
      return undefined;
    }
    return entry;
  }

  private sweep(): void {
    const now = this.clock();
    for (const [key, entry] of this.codes) if (entry.expiresAt <= now) this.codes.delete(key);
  }
}

function keyOf(ref: OpaqueTokenRef): string {
  return `${ref.grantId}:${ref.digest}`;
}

import type { Clock } from '../clock.js';
import { FetchFailed } from './errors.js';

/**
 * A per-process cache of documents fetched from URLs clients control: each kept for the
 * lifetime its load decided, the least recently used dropped past `maxEntries`,
 * concurrent lookups of one URL sharing one load, and a bounded number of loads at once.
 * A failed load is remembered for `failureSeconds` so a bad URL cannot make the server
 * fetch on every request; the error is kept, never a response body.
 */

export interface Loaded<T> {
  readonly value: T;
  /** How long the value may be used; 0 keeps it for no one but the lookups already waiting. */
  readonly seconds: number;
}

export interface DocumentCacheLimits {
  /** Documents and remembered failures kept at most. */
  readonly maxEntries: number;
  /** Seconds a URL whose load failed is not loaded again. */
  readonly failureSeconds: number;
  /** Loads running at once; a lookup that would start one more fails at once. */
  readonly maxConcurrentLoads: number;
}

type Entry<T> = { readonly value: T; readonly until: number } | { readonly failure: unknown; readonly until: number };

export class DocumentCache<T> {
  private readonly entries = new Map<string, Entry<T>>();
  private readonly loading = new Map<string, Promise<T>>();

  constructor(
    private readonly limits: DocumentCacheLimits,
    private readonly clock: Clock,
  ) {}

  /** The value for `key`: cached, being loaded, or loaded now by `load`. Rejects with the load's error. */
  get(key: string, load: () => Promise<Loaded<T>>): Promise<T> {
    const entry = this.entries.get(key);
    if (entry) {
      this.entries.delete(key);
      if (entry.until > this.clock()) {
        this.entries.set(key, entry); // now the most recently used
        return 'value' in entry ? Promise.resolve(entry.value) : Promise.reject(entry.failure);
      }
    }
    const running = this.loading.get(key);
    if (running) return running;
    // Checked and taken in one synchronous step, so a burst cannot pass the limit together.
    if (this.loading.size >= this.limits.maxConcurrentLoads) {
      return Promise.reject(new FetchFailed('busy', `${this.limits.maxConcurrentLoads} fetches are already running`));
    }
    const loaded = this.load(key, load);
    this.loading.set(key, loaded);
    return loaded;
  }

  /** Entries held now (documents and failures), for tests and metrics. */
  get size(): number {
    return this.entries.size;
  }

  private async load(key: string, load: () => Promise<Loaded<T>>): Promise<T> {
    try {
      const { value, seconds } = await load();
      if (seconds > 0) this.remember(key, { value, until: this.clock() + seconds * 1000 });
      return value;
    } catch (err) {
      if (this.limits.failureSeconds > 0) this.remember(key, { failure: err, until: this.clock() + this.limits.failureSeconds * 1000 });
      throw err;
    } finally {
      this.loading.delete(key);
    }
  }

  private remember(key: string, entry: Entry<T>): void {
    this.entries.set(key, entry);
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= this.limits.maxEntries) break;
      this.entries.delete(oldest);
    }
  }
}

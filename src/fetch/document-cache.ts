import type { Clock } from '../clock.js';
import { FetchFailed } from './errors.js';
import { type FetchSlotLimits, FetchSlots, realTimer, type Timer } from './fetch-slots.js';

/**
 * A per-process cache of documents fetched from URLs clients control: each kept for the
 * lifetime its load decided, the least recently used dropped past `maxEntries`,
 * concurrent lookups of one URL sharing one load, loads admitted by FetchSlots (bounded at
 * once and per host, with a short queue). A failed load is remembered for `failureSeconds`
 * so a bad URL cannot make the server fetch on every request; the error is kept, never a
 * response body. A failure that is the host's (FetchFailed.hostWide: its name, its address,
 * no connection) backs off the host for as long, whatever the URL, so made-up query strings
 * do not dodge it.
 */

export interface Loaded<T> {
  readonly value: T;
  /** How long the value may be used; 0 keeps it for no one but the lookups already waiting. */
  readonly seconds: number;
}

export interface DocumentCacheLimits extends FetchSlotLimits {
  /** Documents and remembered failures kept at most (and as many hosts backing off). */
  readonly maxEntries: number;
  /** Seconds a URL whose load failed, or a host that failed as a whole, is not loaded from again. */
  readonly failureSeconds: number;
}

type Entry<T> = { readonly value: T; readonly until: number } | { readonly failure: unknown; readonly until: number };

interface HostFailure {
  readonly failure: FetchFailed;
  readonly until: number;
}

/** The host (and port) of a URL: what a slot and a back-off are counted by. */
function hostOf(url: string): string {
  return URL.canParse(url) ? new URL(url).host : url;
}

export class DocumentCache<T> {
  private readonly entries = new Map<string, Entry<T>>();
  private readonly loading = new Map<string, Promise<T>>();
  private readonly failedHosts = new Map<string, HostFailure>();
  private readonly slots: FetchSlots;

  constructor(
    private readonly limits: DocumentCacheLimits,
    private readonly clock: Clock,
    timer: Timer = realTimer,
  ) {
    this.slots = new FetchSlots(limits, timer);
  }

  /** The value for `url`: cached, being loaded, or loaded now by `load`. Rejects with the load's error, or FetchFailed when none can start. */
  get(url: string, load: () => Promise<Loaded<T>>): Promise<T> {
    const entry = this.entries.get(url);
    if (entry) {
      this.entries.delete(url);
      if (entry.until > this.clock()) {
        this.entries.set(url, entry); // now the most recently used
        return 'value' in entry ? Promise.resolve(entry.value) : Promise.reject(entry.failure);
      }
    }
    const running = this.loading.get(url);
    if (running) return running;
    const host = hostOf(url);
    const backingOff = this.backingOff(host);
    if (backingOff) return Promise.reject(backingOff);
    const loaded = this.admitted(url, host, load);
    this.loading.set(url, loaded);
    return loaded;
  }

  /**
   * The value for `url` loaded anew, whatever the cache holds (the caller bounds how often:
   * a client's JWKS is refetched for an unknown key at most once per cooldown). A load
   * already running is shared; a host backing off is not contacted.
   */
  reload(url: string, load: () => Promise<Loaded<T>>): Promise<T> {
    this.entries.delete(url);
    return this.get(url, load);
  }

  /** Entries held now (documents and failures), for tests and metrics. */
  get size(): number {
    return this.entries.size;
  }

  /** Loads running, and waiting for a slot (tests and metrics). */
  get loads(): { readonly running: number; readonly waiting: number } {
    return this.slots.usage;
  }

  /** Waits for a slot (taken synchronously, before the first await); a refusal is not the URL's failure, so not remembered. */
  private async admitted(url: string, host: string, load: () => Promise<Loaded<T>>): Promise<T> {
    try {
      const release = await this.slots.acquire(host);
      try {
        // The host may have failed while this waited for its slot.
        const backingOff = this.backingOff(host);
        if (backingOff) throw backingOff;
        return await this.load(url, host, load);
      } finally {
        release();
      }
    } finally {
      this.loading.delete(url);
    }
  }

  private async load(url: string, host: string, load: () => Promise<Loaded<T>>): Promise<T> {
    try {
      const { value, seconds } = await load();
      if (seconds > 0) this.keepBounded(this.entries, url, { value, until: this.clock() + seconds * 1000 });
      return value;
    } catch (err) {
      if (this.limits.failureSeconds > 0) {
        const until = this.clock() + this.limits.failureSeconds * 1000;
        this.keepBounded(this.entries, url, { failure: err, until });
        if (err instanceof FetchFailed && err.hostWide) this.keepBounded(this.failedHosts, host, { failure: err, until });
      }
      throw err;
    }
  }

  /** Why `host` is not contacted now, if it failed as a whole less than failureSeconds ago. */
  private backingOff(host: string): FetchFailed | undefined {
    const failed = this.failedHosts.get(host);
    if (!failed) return undefined;
    if (failed.until <= this.clock()) {
      this.failedHosts.delete(host);
      return undefined;
    }
    return new FetchFailed(
      'backing_off',
      `${host} is not contacted for ${this.limits.failureSeconds} s after a failed fetch: ${failed.failure.message}`,
    );
  }

  /** Sets `key` as the most recent, dropping the oldest past maxEntries. */
  private keepBounded<V>(map: Map<string, V>, key: string, value: V): void {
    map.delete(key);
    map.set(key, value);
    for (const oldest of map.keys()) {
      if (map.size <= this.limits.maxEntries) break;
      map.delete(oldest);
    }
  }
}

import type { Clock } from '../clock.js';
import { DocumentCache, type DocumentCacheLimits } from '../fetch/document-cache.js';
import type { Timer } from '../fetch/fetch-slots.js';
import { cacheLifetime, type FreshnessBounds } from '../fetch/freshness.js';
import { type FetchPolicy, fetchJson } from '../fetch/safe-fetch.js';
import { type ClientKeysSource, type PublicJwks, publishedJwks } from './client-jwks.js';
import { METADATA_DOCUMENT_CACHE_LIMITS } from './metadata-documents.js';

/**
 * The public keys of private_key_jwt clients: inline (`jwks`), or fetched from the client's
 * `jwks_uri` through the SSRF-safe fetcher and kept per process for as long as the
 * response's Cache-Control says, within the operator's bounds (as metadata documents are).
 * When an assertion names a key the cached set lacks, the client may have rotated its keys:
 * the set is fetched again, but at most once per cooldown per URL, so made-up `kid`s cannot
 * make us hammer someone's server. A failed fetch is remembered for a few seconds
 * (document-cache.ts); the caller answers invalid_client, never an error of ours.
 */

export interface ClientKeysSettings {
  /** CLIENT_ID_METADATA_ALLOW_INSECURE allows http:// and loopback; the timeout is CLIENT_ID_METADATA_TIMEOUT_MS. */
  readonly fetch: FetchPolicy;
  /** CLIENT_ID_METADATA_MIN_TTL and CLIENT_ID_METADATA_MAX_TTL. */
  readonly ttl: FreshnessBounds;
  readonly clock: Clock;
  /** Seconds between two fetches of one jwks_uri that an unknown key may prompt (default 60). */
  readonly refetchCooldownSeconds?: number;
  /** Told why a jwks_uri could not be used (logged by the caller), once per fetch. */
  readonly onFetchFailed?: (jwksUri: string, reason: string) => void;
  /** Ends the waits for a fetch slot; tests inject their own. */
  readonly timer?: Timer;
}

/** The default cooldown: a client that rotates its keys waits at most this long for its new key to be fetched. */
export const JWKS_REFETCH_COOLDOWN_SECONDS = 60;

/** A JWK Set of up to 100 keys fits in far less. */
export const JWKS_MAX_BYTES = 65_536;

export class ClientKeys {
  private readonly cache: DocumentCache<PublicJwks>;
  /** When each jwks_uri was last fetched (bounded like the cache). */
  private readonly fetchedAt = new Map<string, number>();

  constructor(
    private readonly settings: ClientKeysSettings,
    private readonly limits: DocumentCacheLimits = METADATA_DOCUMENT_CACHE_LIMITS,
  ) {
    this.cache = new DocumentCache(limits, settings.clock, settings.timer);
  }

  /**
   * The client's keys. With `afterUnknownKey`, a `jwks_uri` is fetched again unless it was
   * fetched within the cooldown (then the keys held are the answer). Rejects when the
   * `jwks_uri` cannot be fetched or answers no usable JWK Set.
   */
  async keysOf(source: ClientKeysSource, afterUnknownKey = false): Promise<PublicJwks> {
    if ('jwks' in source) return source.jwks;
    const uri = source.jwksUri;
    const load = () => this.fetch(uri);
    if (!afterUnknownKey) return this.cache.get(uri, load);
    const cooldownMs = (this.settings.refetchCooldownSeconds ?? JWKS_REFETCH_COOLDOWN_SECONDS) * 1000;
    const last = this.fetchedAt.get(uri);
    if (last !== undefined && this.settings.clock() - last < cooldownMs) return this.cache.get(uri, load);
    return this.cache.reload(uri, load);
  }

  private async fetch(uri: string): Promise<{ value: PublicJwks; seconds: number }> {
    this.fetchedAt.delete(uri);
    this.fetchedAt.set(uri, this.settings.clock());
    for (const oldest of this.fetchedAt.keys()) {
      if (this.fetchedAt.size <= this.limits.maxEntries) break;
      this.fetchedAt.delete(oldest);
    }
    try {
      const fetched = await fetchJson(uri, { ...this.settings.fetch, maxBytes: JWKS_MAX_BYTES });
      return { value: publishedJwks(fetched.body), seconds: cacheLifetime(fetched.cacheControl, fetched.age, this.settings.ttl) };
    } catch (err) {
      this.settings.onFetchFailed?.(uri, (err as Error).message);
      throw err;
    }
  }
}

import type { Clock } from '../clock.js';
import { DocumentCache, type DocumentCacheLimits } from '../fetch/document-cache.js';
import { FetchFailed, type FetchFailureCode } from '../fetch/errors.js';
import type { Timer } from '../fetch/fetch-slots.js';
import { cacheLifetime, type FreshnessBounds } from '../fetch/freshness.js';
import { type FetchPolicy, fetchJson } from '../fetch/safe-fetch.js';
import type { ClientSource } from './directory.js';
import { clientFromMetadataDocument, clientIdentifierUrlProblem, looksLikeClientIdentifierUrl } from './metadata-document.js';
import type { ClientMetadataPolicy } from './registration-metadata.js';
import type { Client } from './registry.js';

/**
 * The clients that describe themselves in a Client ID Metadata Document: a source of the
 * client directory, asked after CLIENTS_FILE (and after registrations), so a pre-registered
 * id is never fetched. A `client_id` written as an https URL is fetched through the
 * SSRF-safe fetcher, validated (metadata-document.ts, under the policy of registrations)
 * and cached per process within the operator's bounds. A document that cannot be fetched,
 * is invalid or asks for what the policy refuses makes the client unknown (CIMD §5.1: "the
 * authorization server SHOULD abort the authorization request"), and the reason is
 * reported once per fetch (or refusal to fetch), never the document itself.
 */

export interface MetadataDocumentSettings {
  readonly fetch: FetchPolicy;
  /** What a client describing itself may have: the policy of registrations, whether or not registration is on. */
  readonly policy: ClientMetadataPolicy;
  readonly ttl: FreshnessBounds;
  readonly clock: Clock;
  /** Told why a client id could not be used (logged by the caller). */
  readonly onRefused?: (clientId: string, reason: string) => void;
  /** Ends the waits for a fetch slot; tests inject their own. */
  readonly timer?: Timer;
}

/**
 * 1000 documents of at most a few kilobytes each; a failed URL (and a host that failed as a
 * whole) is fetched from again after 10 seconds at the earliest (CIMD §5.2 says invalid
 * documents and error responses "MUST NOT" be cached: none is kept, only the fact that the
 * fetch failed, for a short back-off); 32 fetches at once, each bounded by the fetch
 * timeout, at most 4 of them (running or waiting) from one host; up to 64 lookups wait for
 * a slot, each at most 2 seconds.
 */
export const METADATA_DOCUMENT_CACHE_LIMITS: DocumentCacheLimits = {
  maxEntries: 1000,
  failureSeconds: 10,
  maxConcurrentLoads: 32,
  maxLoadsPerHost: 4,
  maxQueuedLoads: 64,
  queueWaitMs: 2000,
};

/** Refusals before any fetch: no slot, or a host backing off. */
const NOT_STARTED: ReadonlySet<FetchFailureCode> = new Set(['busy', 'backing_off']);

export class MetadataDocumentClients implements ClientSource {
  private readonly cache: DocumentCache<Client>;

  constructor(
    private readonly settings: MetadataDocumentSettings,
    limits: DocumentCacheLimits = METADATA_DOCUMENT_CACHE_LIMITS,
  ) {
    this.cache = new DocumentCache(limits, settings.clock, settings.timer);
  }

  async find(clientId: string): Promise<Client | undefined> {
    if (!looksLikeClientIdentifierUrl(clientId)) return undefined;
    const problem = clientIdentifierUrlProblem(clientId, this.settings.fetch.allowHttp);
    if (problem !== undefined) {
      this.settings.onRefused?.(clientId, problem);
      return undefined;
    }
    try {
      return await this.cache.get(clientId, () => this.fetch(clientId));
    } catch (err) {
      // A failure already reported when it happened is only remembered; a fetch that never started is reported now.
      if (err instanceof FetchFailed && NOT_STARTED.has(err.code)) this.settings.onRefused?.(clientId, err.message);
      return undefined;
    }
  }

  /** Entries the cache holds now (documents and remembered failures). */
  get cached(): number {
    return this.cache.size;
  }

  private async fetch(clientId: string): Promise<{ value: Client; seconds: number }> {
    try {
      const fetched = await fetchJson(clientId, this.settings.fetch);
      const client = clientFromMetadataDocument(clientId, fetched.body, this.settings.policy);
      return { value: client, seconds: cacheLifetime(fetched.cacheControl, fetched.age, this.settings.ttl) };
    } catch (err) {
      this.settings.onRefused?.(clientId, (err as Error).message);
      throw err;
    }
  }
}

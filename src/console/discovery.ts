import { type Clock, nowSeconds } from '../clock.js';
import { DocumentCache } from '../fetch/document-cache.js';
import { FetchFailed } from '../fetch/errors.js';
import { fetchJson, type Resolver } from '../fetch/safe-fetch.js';
import { upstreamFetchPolicy } from '../identity/upstream-context.js';

/**
 * Whether an OpenID Connect provider's discovery document answers, as the console shows it:
 * fetched through the SSRF-safe fetcher with the provider's own policy (https and public
 * addresses unless the operator allowed otherwise) but a short deadline, so a page waits
 * seconds at most; each answer kept for a minute (a failure for 15 seconds), concurrent
 * checks of one provider sharing one fetch. GitHub has no discovery: its endpoints are fixed.
 */

export type DiscoveryFailure = 'unreachable' | 'answer' | 'issuer';

export type DiscoveryStatus =
  | { readonly state: 'answers'; readonly checkedAt: number }
  | { readonly state: 'fails'; readonly failure: DiscoveryFailure; readonly detail: string; readonly checkedAt: number }
  | { readonly state: 'none' };

/** What a check needs of a provider entry. */
export type CheckedProvider = Readonly<Record<string, unknown>>;

export const DISCOVERY_CHECK = { timeoutMs: 3000, maxBytes: 512 * 1024, answersSeconds: 60, failsSeconds: 15 } as const;

export interface DiscoveryCheckOptions {
  /** IDENTITY_PROVIDERS_ALLOW_INSECURE. */
  readonly allowInsecure: boolean;
  readonly ca?: string | undefined;
  readonly resolve?: Resolver | undefined;
}

/**
 * OpenID Connect Discovery 1.0 §4: "the path component /.well-known/openid-configuration" is
 * appended to the issuer, "the Issuer MUST NOT contain a trailing /" before it is.
 */
export function discoveryUrl(issuer: string): string {
  return `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
}

function checked(body: unknown, issuer: string, now: number): DiscoveryStatus {
  const document = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const endpoints = ['authorization_endpoint', 'token_endpoint'].every((name) => typeof document[name] === 'string');
  if (typeof document.issuer !== 'string' || !endpoints)
    return { state: 'fails', failure: 'answer', detail: 'no issuer, authorization_endpoint or token_endpoint', checkedAt: now };
  // OpenID Connect Discovery 1.0 §4.3: the issuer returned "MUST be identical to the Issuer value" the document was fetched for.
  if (document.issuer !== issuer)
    return { state: 'fails', failure: 'issuer', detail: `its issuer is ${document.issuer}, not ${issuer}`, checkedAt: now };
  return { state: 'answers', checkedAt: now };
}

export class DiscoveryChecks {
  private readonly cache: DocumentCache<DiscoveryStatus>;

  constructor(
    private readonly options: DiscoveryCheckOptions,
    private readonly clock: Clock,
  ) {
    this.cache = new DocumentCache(
      { maxEntries: 256, failureSeconds: 0, maxConcurrentLoads: 8, maxLoadsPerHost: 2, maxQueuedLoads: 64, queueWaitMs: 1000 },
      clock,
    );
  }

  /** The provider's status: kept from a check less than a minute ago, else checked now (`fresh`: checked now whatever is kept). */
  async status(provider: CheckedProvider, fresh = false): Promise<DiscoveryStatus> {
    if (provider.type !== 'oidc' || typeof provider.issuer !== 'string') return { state: 'none' };
    const issuer = provider.issuer;
    const allowPrivate = provider.allow_private_addresses === true;
    // One entry per URL and policy (a fragment keeps the host what slots are counted by).
    const key = `${discoveryUrl(issuer)}#${allowPrivate ? 'private' : 'public'}`;
    const load = () => this.check(issuer, allowPrivate);
    try {
      return await (fresh ? this.cache.reload(key, load) : this.cache.get(key, load));
    } catch (err) {
      // No slot free (many checks at once): said as not answering, and not kept.
      return { state: 'fails', failure: 'unreachable', detail: (err as Error).message, checkedAt: nowSeconds(this.clock) };
    }
  }

  private async check(issuer: string, allowPrivateAddresses: boolean): Promise<{ value: DiscoveryStatus; seconds: number }> {
    const policy = {
      ...upstreamFetchPolicy({ ...this.options, allowPrivateAddresses }),
      timeoutMs: DISCOVERY_CHECK.timeoutMs,
      maxBytes: DISCOVERY_CHECK.maxBytes,
    };
    const now = nowSeconds(this.clock);
    let value: DiscoveryStatus;
    try {
      value = checked((await fetchJson(discoveryUrl(issuer), policy)).body, issuer, now);
    } catch (err) {
      const unreachable =
        !(err instanceof FetchFailed) ||
        ['status', 'content_type', 'content_encoding', 'too_large', 'malformed_json'].indexOf(err.code) < 0;
      value = { state: 'fails', failure: unreachable ? 'unreachable' : 'answer', detail: (err as Error).message, checkedAt: now };
    }
    return { value, seconds: value.state === 'answers' ? DISCOVERY_CHECK.answersSeconds : DISCOVERY_CHECK.failsSeconds };
  }
}

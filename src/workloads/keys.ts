import { createLocalJWKSet, createRemoteJWKSet, customFetch, type FetchImplementation, type JWTVerifyGetKey } from 'jose';
import { type Clock, nowSeconds } from '../clock.js';
import { type FetchPolicy, fetchJson, type Resolver } from '../fetch/safe-fetch.js';
import { safeFetch } from '../fetch/safe-request.js';
import { WorkloadRefused } from './assertion.js';
import { discoveryUrlOf, signingKeysOf, type WorkloadTrust } from './trusts.js';

/**
 * The keys a trust's JWTs are verified with (MCP Workload Identity Federation, "Issuer Key
 * Retrieval"): inline (`jwks`), at `jwks_uri`, or at the `jwks_uri` of the issuer's OpenID
 * discovery document (Kubernetes and GitHub Actions publish one). Everything is fetched
 * through the SSRF-safe fetcher: https only and public addresses only, unless
 * WORKLOAD_TRUSTS_ALLOW_INSECURE (tests) or the trust's `allow_private_addresses` (an
 * in-cluster API server). jose's remote key set caches the keys (10 minutes) and fetches them
 * again for an unknown `kid` at most once a minute; a discovery document is kept an hour, and a
 * failed discovery is tried again after 5 seconds at the earliest (meanwhile the last good one
 * serves).
 */

export interface WorkloadKeysSettings {
  /** WORKLOAD_TRUSTS_ALLOW_INSECURE: http:// and loopback or private addresses. */
  readonly allowInsecure: boolean;
  /** Trust anchors and DNS (tests); default: Node's CA list and DNS. */
  readonly ca?: string | undefined;
  readonly resolve?: Resolver | undefined;
  readonly clock: Clock;
}

/** Deadline and size limit of every request to an issuer (discovery, JWKS). */
const FETCH_LIMITS = { timeoutMs: 10_000, maxBytes: 512 * 1024 } as const;
const DISCOVERY_MAX_AGE_SECONDS = 3600;
const DISCOVERY_RETRY_SECONDS = 5;

interface Discovery {
  readonly url: string;
  readonly jwksUri?: string;
  readonly at: number;
  readonly failure?: WorkloadRefused;
}

export class WorkloadKeys {
  private readonly inline = new WeakMap<WorkloadTrust, JWTVerifyGetKey>();
  /** By trust id: a URL and its remote key set (a trust whose URL changes gets a new one). */
  private readonly remote = new Map<string, { readonly source: string; readonly keys: JWTVerifyGetKey }>();
  private readonly discoveries = new Map<string, Discovery>();
  private readonly discovering = new Map<string, Promise<string>>();

  constructor(private readonly settings: WorkloadKeysSettings) {}

  /** The trust's keys; rejects with WorkloadRefused (keys_unavailable) when its discovery cannot be had. */
  async keysFor(trust: WorkloadTrust): Promise<JWTVerifyGetKey> {
    if (trust.jwks !== undefined) {
      let keys = this.inline.get(trust);
      if (!keys) this.inline.set(trust, (keys = createLocalJWKSet(signingKeysOf(trust.jwks))));
      return keys;
    }
    const uri = trust.jwks_uri ?? (await this.discoveredJwksUri(trust));
    const source = `${String(trust.allow_private_addresses)} ${uri}`;
    const held = this.remote.get(trust.id);
    if (held?.source === source) return held.keys;
    const keys = createRemoteJWKSet(new URL(uri), {
      [customFetch]: safeFetch(this.policyFor(trust)) as FetchImplementation,
      timeoutDuration: FETCH_LIMITS.timeoutMs,
      cooldownDuration: 60_000,
      cacheMaxAge: 600_000,
    });
    this.remote.set(trust.id, { source, keys });
    return keys;
  }

  private policyFor(trust: WorkloadTrust): FetchPolicy {
    const { allowInsecure, ca, resolve } = this.settings;
    return {
      allowHttp: allowInsecure,
      allowSpecialUseAddresses: allowInsecure || trust.allow_private_addresses,
      ...FETCH_LIMITS,
      ca,
      resolve,
    };
  }

  private async discoveredJwksUri(trust: WorkloadTrust): Promise<string> {
    const url = discoveryUrlOf(trust) as string;
    const now = nowSeconds(this.settings.clock);
    const held = this.discoveries.get(trust.id);
    const current = held?.url === url ? held : undefined;
    if (current?.jwksUri !== undefined && now - current.at < DISCOVERY_MAX_AGE_SECONDS) return current.jwksUri;
    if (current?.failure && now - current.at < DISCOVERY_RETRY_SECONDS) throw current.failure;
    let pending = this.discovering.get(trust.id);
    if (!pending) {
      pending = this.discover(trust, url).finally(() => this.discovering.delete(trust.id));
      this.discovering.set(trust.id, pending);
    }
    try {
      return await pending;
    } catch (err) {
      // Down now, known before: the keys it named last still verify.
      const stale = this.discoveries.get(trust.id);
      if (stale?.url === url && stale.jwksUri !== undefined) return stale.jwksUri;
      throw err;
    }
  }

  private async discover(trust: WorkloadTrust, url: string): Promise<string> {
    const at = nowSeconds(this.settings.clock);
    try {
      const { body } = await fetchJson(url, this.policyFor(trust));
      const document = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
      // OpenID Connect Discovery §4.3: "The issuer value returned MUST be identical to the Issuer
      // URL that was used as the prefix to /.well-known/openid-configuration".
      if (document.issuer !== trust.issuer) throw new Error(`the discovery document names the issuer ${String(document.issuer)}`);
      if (typeof document.jwks_uri !== 'string' || !URL.canParse(document.jwks_uri))
        throw new Error('the discovery document has no jwks_uri');
      this.discoveries.set(trust.id, { url, jwksUri: document.jwks_uri, at });
      return document.jwks_uri;
    } catch (err) {
      const failure = new WorkloadRefused('keys_unavailable', `discovery at ${url} failed: ${(err as Error).message}`, {
        cause: err,
        trust: trust.id,
      });
      const known = this.discoveries.get(trust.id);
      this.discoveries.set(trust.id, { ...(known?.url === url && known.jwksUri ? { jwksUri: known.jwksUri } : {}), url, at, failure });
      throw failure;
    }
  }
}

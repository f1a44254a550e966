import type { IdJagIssuer, IdJagIssuers } from './id-jag.js';
import type { ProviderConfig } from './providers.js';
import { OidcUpstream } from './oidc-upstream.js';
import type { UpstreamProviders } from './upstream-providers.js';

/**
 * The identity providers trusted to issue ID-JAGs: the OpenID Connect entries of
 * IDENTITY_PROVIDERS_FILE with `"id_jag": true`, found by their issuer identifier exactly as
 * configured (as the provider's discovery document says it). Read at each request, so a
 * reload (SIGHUP) that adds or removes a provider, or its `id_jag`, applies at once.
 */
export class TrustedIdJagIssuers implements IdJagIssuers {
  constructor(private readonly providers: UpstreamProviders) {}

  byIssuer(iss: string): IdJagIssuer | undefined {
    const config = this.providers.all().find((p) => p.type === 'oidc' && p.id_jag && p.issuer === iss);
    const provider = config && this.providers.get(config.id);
    if (!config || !(provider instanceof OidcUpstream)) return undefined;
    return { providerId: config.id, keys: () => provider.signingKeys() };
  }
}

/** Whether any provider is trusted for ID-JAGs now (the metadata's grant profile). */
export function trustsIdJags(providers: { all(): readonly ProviderConfig[] }): boolean {
  return providers.all().some((p) => p.type === 'oidc' && p.id_jag);
}

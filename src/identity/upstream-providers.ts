import type { Clock } from '../clock.js';
import type { Endpoints } from '../endpoints.js';
import type { Resolver } from '../fetch/guard.js';
import { safeFetch } from '../fetch/safe-request.js';
import { GithubUpstream } from './github-upstream.js';
import { OidcUpstream } from './oidc-upstream.js';
import type { ProviderConfig, ProviderRegistry } from './providers.js';
import { type UpstreamContext, upstreamFetchPolicy } from './upstream-context.js';
import { type UpstreamProvider, UpstreamSignInFailed, type UpstreamTokens } from './upstream.js';

/**
 * The providers of IDENTITY_PROVIDERS_FILE as the sign-in step uses them: one
 * UpstreamProvider per entry, made when first used (or discovered) and kept until a reload
 * of the file replaces the entry (then a new one, with a fresh discovery).
 */

export interface UpstreamProvidersOptions {
  readonly allowInsecure: boolean;
  /** Trust anchors (PEM) and DNS for the fetches (tests); default: Node's CA list and DNS. */
  readonly ca?: string | undefined;
  readonly resolve?: Resolver | undefined;
}

export class UpstreamProviders {
  private readonly made = new WeakMap<ProviderConfig, UpstreamProvider>();

  constructor(
    private readonly registry: ProviderRegistry,
    private readonly endpoints: Endpoints,
    private readonly options: UpstreamProvidersOptions,
    private readonly clock: Clock,
  ) {}

  /** The providers, in the file's order (the login page's buttons). */
  all(): ProviderConfig[] {
    return this.registry.all();
  }

  get size(): number {
    return this.registry.size;
  }

  /** The provider registered under `id`, ready to use; undefined for an id the file does not have (now). */
  get(id: string): UpstreamProvider | undefined {
    const config = this.registry.get(id);
    if (!config) return undefined;
    let provider = this.made.get(config);
    if (!provider) {
      provider = this.make(config);
      this.made.set(config, provider);
    }
    return provider;
  }

  /**
   * Starts every provider's discovery (OpenID Connect; GitHub's URLs are configured) and
   * returns at once: the first sign-in then finds it made. A failure goes to `onFailure`;
   * the provider's next use tries again.
   */
  discoverAll(onFailure: (id: string, err: Error) => void): void {
    for (const { id } of this.all()) {
      const provider = this.get(id);
      provider?.prepare().catch((err: Error) => onFailure(id, err));
    }
  }

  /** The redirect URI registered at the provider `id`. */
  callbackUrl(id: string): string {
    return this.endpoints.upstreamCallbackUrl(id);
  }

  /** Where the provider `id` sends the browser back after its sign-out (registered there too). */
  signedOutUrl(id: string): string {
    return this.endpoints.upstreamSignedOutUrl(id);
  }

  /** Fresh tokens from the provider `id`'s refresh token (the token vault's refresh). */
  refresh = async (id: string, refreshToken: string): Promise<UpstreamTokens> => {
    const provider = this.get(id);
    if (!provider) throw new UpstreamSignInFailed('provider_removed', `identity provider "${id}" is no longer configured`);
    return provider.refresh(refreshToken);
  };

  private make(config: ProviderConfig): UpstreamProvider {
    const context: UpstreamContext = {
      redirectUri: this.endpoints.upstreamCallbackUrl(config.id),
      signedOutUri: this.endpoints.upstreamSignedOutUrl(config.id),
      allowInsecure: this.options.allowInsecure,
      fetch: safeFetch(
        upstreamFetchPolicy({
          allowInsecure: this.options.allowInsecure,
          allowPrivateAddresses: config.allow_private_addresses,
          ca: this.options.ca,
          resolve: this.options.resolve,
        }),
      ),
    };
    return config.type === 'oidc' ? new OidcUpstream(config, context, this.clock) : new GithubUpstream(config, context, this.clock);
  }
}

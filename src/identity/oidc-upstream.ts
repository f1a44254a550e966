import { createRemoteJWKSet, customFetch, type FetchImplementation, type JWTVerifyGetKey } from 'jose';
import * as oidc from 'openid-client';
import { type Clock, nowSeconds } from '../clock.js';
import { lacksProfileClaims, profileOf } from './profile.js';
import type { OidcProviderConfig } from './providers.js';
import { type UpstreamContext, upstreamFailure } from './upstream-context.js';
import type { SignInDemands, UpstreamChecks, UpstreamIdentity, UpstreamProvider, UpstreamTokens } from './upstream.js';
import { UpstreamSignInFailed } from './upstream.js';

/**
 * An OpenID Connect provider by its issuer, through openid-client (panva): discovery,
 * authorization code with PKCE S256, `state` and `nonce`, RFC 9207 `iss` when the provider
 * sends it, the ID token validated by the library (signature by the provider's JWKS, `iss`,
 * `aud`, `exp`, `nonce`), then userinfo when the ID token lacks a mapped claim. Every
 * request goes through our SSRF-safe fetcher (customFetch).
 *
 * Discovery is started with the server in the background (UpstreamProviders.discoverAll)
 * and cached: a provider that is down at start stops nothing, a sign-in through it fails
 * with `provider_unavailable` (retried at most every few seconds), and a cached
 * configuration is refreshed hourly in the background, the old one kept while the provider
 * is down.
 */

const DISCOVERY_MAX_AGE_SECONDS = 3600;
const DISCOVERY_RETRY_SECONDS = 5;

interface Discovered {
  readonly configuration: oidc.Configuration;
  readonly at: number;
}

/** OpenID Connect Discovery §3: token_endpoint_auth_methods_supported "If omitted, the default is client_secret_basic". */
function authMethodOf(config: OidcProviderConfig, supported: readonly string[] | undefined): 'client_secret_basic' | 'client_secret_post' {
  if (config.token_endpoint_auth_method !== undefined) return config.token_endpoint_auth_method;
  if (supported === undefined || supported.includes('client_secret_basic')) return 'client_secret_basic';
  return supported.includes('client_secret_post') ? 'client_secret_post' : 'client_secret_basic';
}

/** The operator's `prompt` (authorization_params), with `login` added when a fresh sign-in is asked for. */
function promptOf(configured: string | undefined, freshSignIn: boolean): { prompt?: string } {
  const values = new Set((configured ?? '').split(' ').filter(Boolean));
  if (freshSignIn) values.add('login');
  return values.size > 0 ? { prompt: [...values].join(' ') } : {};
}

function tokensOf(response: oidc.TokenEndpointResponse, now: number): UpstreamTokens {
  return {
    accessToken: response.access_token,
    ...(typeof response.refresh_token === 'string' ? { refreshToken: response.refresh_token } : {}),
    ...(typeof response.expires_in === 'number' ? { expiresAt: now + response.expires_in } : {}),
    ...(typeof response.scope === 'string' ? { scope: response.scope } : {}),
    ...(typeof response.id_token === 'string' ? { idToken: response.id_token } : {}),
  };
}

export class OidcUpstream implements UpstreamProvider {
  private discovered: Discovered | undefined;
  private discovering: Promise<oidc.Configuration> | undefined;
  private lastFailure: { at: number; error: UpstreamSignInFailed } | undefined;
  private keySet: { readonly uri: string; readonly keys: JWTVerifyGetKey } | undefined;

  constructor(
    readonly config: OidcProviderConfig,
    private readonly context: UpstreamContext,
    private readonly clock: Clock,
  ) {}

  authorizationOrigin(): string {
    const endpoint = this.discovered?.configuration.serverMetadata().authorization_endpoint;
    return new URL(endpoint ?? this.config.issuer).origin;
  }

  async authorizationUrl(checks: UpstreamChecks, demands: SignInDemands): Promise<URL> {
    const configuration = await this.configuration();
    // Our own client id, our redirect URI, the configured scope: nothing of our client's request.
    const parameters: Record<string, string> = {
      ...this.config.authorization_params,
      redirect_uri: this.context.redirectUri,
      scope: this.config.scope,
      response_type: 'code',
      state: checks.state,
      nonce: checks.nonce,
      code_challenge: await oidc.calculatePKCECodeChallenge(checks.codeVerifier),
      code_challenge_method: 'S256',
      ...promptOf(this.config.authorization_params?.prompt, demands.freshSignIn),
      ...(demands.maxAge !== undefined ? { max_age: String(demands.maxAge) } : {}),
    };
    return oidc.buildAuthorizationUrl(configuration, parameters);
  }

  async complete(callback: URL, checks: UpstreamChecks): Promise<UpstreamIdentity> {
    const configuration = await this.configuration();
    const now = nowSeconds(this.clock);
    let response: oidc.TokenEndpointResponse & oidc.TokenEndpointResponseHelpers;
    try {
      response = await oidc.authorizationCodeGrant(configuration, callback, {
        pkceCodeVerifier: checks.codeVerifier,
        expectedState: checks.state,
        expectedNonce: checks.nonce,
        idTokenExpected: true,
      });
    } catch (err) {
      throw upstreamFailure(err, 'the code exchange');
    }
    const idClaims = response.claims() as Readonly<Record<string, unknown>>;
    const subject = idClaims.sub as string;
    let claims: Record<string, unknown> = { ...idClaims };
    if (lacksProfileClaims(idClaims) && configuration.serverMetadata().userinfo_endpoint !== undefined) {
      try {
        // §5.3.2: "The sub Claim in the UserInfo Response MUST be verified to exactly match the sub Claim in the ID Token".
        const userinfo = await oidc.fetchUserInfo(configuration, response.access_token, subject);
        claims = { ...userinfo, ...idClaims };
      } catch (err) {
        throw upstreamFailure(err, 'userinfo');
      }
    }
    return {
      subject,
      profile: profileOf(claims),
      claims,
      ...(Array.isArray(idClaims.amr) ? { amr: idClaims.amr.filter((v): v is string => typeof v === 'string') } : {}),
      ...(typeof idClaims.auth_time === 'number' ? { authTime: idClaims.auth_time } : {}),
      tokens: tokensOf(response, now),
    };
  }

  async refresh(refreshToken: string): Promise<UpstreamTokens> {
    const configuration = await this.configuration();
    try {
      return tokensOf(await oidc.refreshTokenGrant(configuration, refreshToken), nowSeconds(this.clock));
    } catch (err) {
      throw upstreamFailure(err, 'the refresh');
    }
  }

  async endSessionUrl(idTokenHint: string | undefined, returnTo: string, state: string): Promise<URL | undefined> {
    const configuration = await this.configuration();
    if (configuration.serverMetadata().end_session_endpoint === undefined) return undefined;
    return oidc.buildEndSessionUrl(configuration, {
      post_logout_redirect_uri: returnTo,
      state,
      ...(idTokenHint !== undefined ? { id_token_hint: idTokenHint } : {}),
    });
  }

  /**
   * The provider's signing keys, from its discovery document's jwks_uri, for the assertions it
   * issues itself (ID-JAG): jose's remote key set through our SSRF-safe fetcher, cached, and
   * fetched again for an unknown `kid` at most once a minute.
   */
  async signingKeys(): Promise<JWTVerifyGetKey> {
    const uri = (await this.configuration()).serverMetadata().jwks_uri;
    if (uri === undefined) throw new UpstreamSignInFailed('provider_unavailable', `${this.config.name} publishes no jwks_uri`);
    if (this.keySet?.uri !== uri) {
      const keys = createRemoteJWKSet(new URL(uri), {
        [customFetch]: this.context.fetch as FetchImplementation,
        cooldownDuration: 60_000,
        cacheMaxAge: 600_000,
      });
      this.keySet = { uri, keys };
    }
    return this.keySet.keys;
  }

  /** Fetches the provider's configuration if it has none yet (at start; the login page's CSP needs its authorization endpoint). */
  async prepare(): Promise<void> {
    await this.configuration();
  }

  /**
   * The provider's configuration: cached; once old, the cached one is answered while a fresh
   * one is fetched beside (a provider that hangs never holds a sign-in up once it answered
   * before); never fetched twice at once.
   */
  private async configuration(): Promise<oidc.Configuration> {
    const now = nowSeconds(this.clock);
    const cached = this.discovered;
    if (cached && now - cached.at < DISCOVERY_MAX_AGE_SECONDS) return cached.configuration;
    const retryLater = this.lastFailure !== undefined && now - this.lastFailure.at < DISCOVERY_RETRY_SECONDS;
    if (cached) {
      // Down now, known before: sign-ins go on with what it said last.
      if (!retryLater) this.rediscover().catch(() => undefined);
      return cached.configuration;
    }
    if (retryLater) throw (this.lastFailure as { error: UpstreamSignInFailed }).error;
    return this.rediscover();
  }

  private rediscover(): Promise<oidc.Configuration> {
    this.discovering ??= this.discover().finally(() => (this.discovering = undefined));
    return this.discovering;
  }

  private async discover(): Promise<oidc.Configuration> {
    const { config, context } = this;
    const options: oidc.DiscoveryRequestOptions = {
      [oidc.customFetch]: context.fetch as oidc.CustomFetch,
      ...(context.allowInsecure ? { execute: [oidc.allowInsecureRequests] } : {}),
    };
    try {
      const found = await oidc.discovery(
        new URL(config.issuer),
        config.client_id,
        undefined,
        oidc.ClientSecretBasic(config.client_secret),
        options,
      );
      const metadata = found.serverMetadata();
      const method = authMethodOf(config, metadata.token_endpoint_auth_methods_supported);
      const auth =
        method === 'client_secret_post' ? oidc.ClientSecretPost(config.client_secret) : oidc.ClientSecretBasic(config.client_secret);
      const configuration = new oidc.Configuration(metadata, config.client_id, { client_secret: config.client_secret }, auth);
      configuration[oidc.customFetch] = context.fetch as oidc.CustomFetch;
      if (context.allowInsecure) oidc.allowInsecureRequests(configuration);
      this.discovered = { configuration, at: nowSeconds(this.clock) };
      this.lastFailure = undefined;
      return configuration;
    } catch (err) {
      const error = new UpstreamSignInFailed('provider_unavailable', `${config.name} could not be discovered at ${config.issuer}`, {
        cause: err,
      });
      this.lastFailure = { at: nowSeconds(this.clock), error };
      throw error;
    }
  }
}

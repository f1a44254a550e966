import * as oauth from 'openid-client';
import { type Clock, nowSeconds } from '../clock.js';
import { profileOf } from './profile.js';
import type { GithubProviderConfig } from './providers.js';
import { type UpstreamContext, upstreamFailure } from './upstream-context.js';
import type { SignInDemands, UpstreamChecks, UpstreamIdentity, UpstreamProvider, UpstreamTokens } from './upstream.js';
import { UpstreamSignInFailed } from './upstream.js';

/**
 * GitHub's OAuth apps (github.com, or GitHub Enterprise Server through `base_url` and
 * `api_url`): `{base_url}/login/oauth/authorize` with `state` and PKCE S256, the code
 * exchanged at `{base_url}/login/oauth/access_token` (openid-client, as a plain OAuth 2.0
 * server: GitHub is no OpenID provider), then the REST API: `GET {api_url}/user` (the
 * numeric `id` is the identity: a login can be renamed), `GET {api_url}/user/emails` (the
 * primary verified address) and, with `allowed_organizations`, `GET {api_url}/user/orgs`.
 */

const API_HEADERS = { accept: 'application/vnd.github+json', 'x-github-api-version': '2022-11-28' } as const;
/** GitHub's answers when the token may not read the user's addresses: 404 without the user:email scope, 403. */
const NO_EMAIL_ACCESS = [403, 404];
/** How many pages of organizations are read at most (100 each). */
const MAX_ORGANIZATION_PAGES = 10;

function scopeOf(config: GithubProviderConfig): string {
  const base = config.scope ?? 'read:user user:email';
  const scopes = base.split(' ');
  // The organizations a user belongs to (private memberships included) need read:org.
  if (config.allowed_organizations !== undefined && !scopes.includes('read:org')) scopes.push('read:org');
  return scopes.join(' ');
}

/**
 * GitHub answers a refused token request (`bad_verification_code`, `incorrect_client_credentials`,
 * `redirect_uri_mismatch`, `bad_refresh_token`) with HTTP 200 and the error object, where RFC
 * 6749 §5.2 has HTTP 400. openid-client would report such an answer as a malformed success; as
 * a 400 it reports it as the provider's error (ResponseBodyError), which it is.
 */
function githubTokenFetch(fetch: UpstreamContext['fetch']): oauth.CustomFetch {
  return async (url, options) => {
    // openid-client sends a form (URLSearchParams) to the token endpoint: what the fetcher takes.
    const response = await fetch(url, options as Parameters<typeof fetch>[1]);
    if (response.status !== 200) return response;
    const body = await response.text();
    let refused = false;
    try {
      const json: unknown = JSON.parse(body);
      refused = typeof json === 'object' && json !== null && 'error' in json && typeof json.error === 'string' && !('access_token' in json);
    } catch {
      // Not JSON: openid-client says so.
    }
    return new Response(body, { status: refused ? 400 : 200, headers: response.headers });
  };
}

function tokensOf(response: oauth.TokenEndpointResponse, now: number): UpstreamTokens {
  return {
    accessToken: response.access_token,
    ...(typeof response.refresh_token === 'string' ? { refreshToken: response.refresh_token } : {}),
    ...(typeof response.expires_in === 'number' ? { expiresAt: now + response.expires_in } : {}),
    ...(typeof response.scope === 'string' ? { scope: response.scope } : {}),
  };
}

interface GithubUser {
  readonly id: number;
  readonly login: string;
  readonly name?: string | null;
  readonly avatar_url?: string;
}

interface GithubEmail {
  readonly email: string;
  readonly primary: boolean;
  readonly verified: boolean;
}

export class GithubUpstream implements UpstreamProvider {
  private readonly configuration: oauth.Configuration;

  constructor(
    readonly config: GithubProviderConfig,
    private readonly context: UpstreamContext,
    private readonly clock: Clock,
  ) {
    const metadata: oauth.ServerMetadata = {
      issuer: config.base_url,
      authorization_endpoint: `${config.base_url}/login/oauth/authorize`,
      token_endpoint: `${config.base_url}/login/oauth/access_token`,
    };
    // GitHub takes the client's credentials in the form.
    this.configuration = new oauth.Configuration(
      metadata,
      config.client_id,
      config.client_secret,
      oauth.ClientSecretPost(config.client_secret),
    );
    this.configuration[oauth.customFetch] = githubTokenFetch(context.fetch);
    if (context.allowInsecure) oauth.allowInsecureRequests(this.configuration);
  }

  authorizationOrigin(): string {
    return new URL(this.config.base_url).origin;
  }

  /** Its URLs are configured: nothing to learn. */
  async prepare(): Promise<void> {}

  /**
   * GitHub has no prompt=login or max_age; for a fresh sign-in it shows its account picker
   * (`prompt=select_account`), so the user can at least choose another account.
   */
  async authorizationUrl(checks: UpstreamChecks, demands: SignInDemands): Promise<URL> {
    const url = oauth.buildAuthorizationUrl(this.configuration, {
      ...this.config.authorization_params,
      ...(demands.freshSignIn ? { prompt: 'select_account' } : {}),
      redirect_uri: this.context.redirectUri,
      scope: scopeOf(this.config),
      state: checks.state,
      code_challenge: await oauth.calculatePKCECodeChallenge(checks.codeVerifier),
      code_challenge_method: 'S256',
    });
    // GitHub's authorize endpoint takes no response_type (it only has the code flow): the URL carries only what it documents.
    url.searchParams.delete('response_type');
    return url;
  }

  async complete(callback: URL, checks: UpstreamChecks): Promise<UpstreamIdentity> {
    const now = nowSeconds(this.clock);
    let response: oauth.TokenEndpointResponse;
    try {
      response = await oauth.authorizationCodeGrant(this.configuration, callback, {
        pkceCodeVerifier: checks.codeVerifier,
        expectedState: checks.state,
      });
    } catch (err) {
      throw upstreamFailure(err, 'the code exchange');
    }
    const token = response.access_token;
    const user = await this.api<GithubUser>(token, '/user');
    if (typeof user?.id !== 'number' || !Number.isSafeInteger(user.id) || typeof user.login !== 'string')
      throw new UpstreamSignInFailed('invalid_response', 'GET /user: no numeric id and login');
    // Without the user:email scope GitHub answers 404: the user has no email here. Any other failure fails the sign-in.
    const emails = await this.api<GithubEmail[]>(token, '/user/emails', NO_EMAIL_ACCESS);
    const primary = Array.isArray(emails)
      ? emails.find((e) => e.primary === true && e.verified === true && typeof e.email === 'string')
      : undefined;
    const claims: Record<string, unknown> = {
      sub: String(user.id),
      preferred_username: user.login,
      ...(typeof user.name === 'string' ? { name: user.name } : {}),
      ...(typeof user.avatar_url === 'string' ? { picture: user.avatar_url } : {}),
      ...(primary ? { email: primary.email, email_verified: true } : {}),
    };
    return {
      subject: String(user.id),
      profile: profileOf(claims),
      claims,
      ...(this.config.allowed_organizations !== undefined ? { organizations: await this.organizations(token) } : {}),
      tokens: tokensOf(response, now),
    };
  }

  async refresh(refreshToken: string): Promise<UpstreamTokens> {
    try {
      return tokensOf(await oauth.refreshTokenGrant(this.configuration, refreshToken), nowSeconds(this.clock));
    } catch (err) {
      throw upstreamFailure(err, 'the refresh');
    }
  }

  /** GitHub has no end-session endpoint. */
  async endSessionUrl(): Promise<URL | undefined> {
    return undefined;
  }

  /** The logins of the user's organizations, page by page (100 each). */
  private async organizations(token: string): Promise<string[]> {
    const logins: string[] = [];
    for (let page = 1; page <= MAX_ORGANIZATION_PAGES; page++) {
      const orgs = await this.api<{ login?: unknown }[]>(token, `/user/orgs?per_page=100&page=${page}`);
      if (!Array.isArray(orgs)) throw new UpstreamSignInFailed('invalid_response', 'GET /user/orgs: not a list');
      logins.push(...orgs.flatMap((org) => (typeof org.login === 'string' ? [org.login] : [])));
      if (orgs.length < 100) break;
    }
    return logins;
  }

  /** GET `path` of the API, as JSON; undefined when it answers a status of `absentOn`. */
  private async api<T>(token: string, path: string, absentOn: readonly number[] = []): Promise<T | undefined> {
    let response: Response;
    try {
      response = await this.context.fetch(`${this.config.api_url}${path}`, {
        method: 'GET',
        headers: { ...API_HEADERS, authorization: `Bearer ${token}` },
      });
    } catch (err) {
      throw upstreamFailure(err, `GET ${path.split('?')[0]}`);
    }
    if (absentOn.includes(response.status)) return undefined;
    if (response.status !== 200) throw new UpstreamSignInFailed('upstream_error', `GET ${path.split('?')[0]}: status ${response.status}`);
    try {
      return (await response.json()) as T;
    } catch (err) {
      throw new UpstreamSignInFailed('invalid_response', `GET ${path.split('?')[0]}: not JSON`, { cause: err });
    }
  }
}

import type { ProviderConfig } from './providers.js';

/**
 * One upstream identity provider as the sign-in step uses it: where to send the browser
 * (our client id, our redirect URI, the configured scope, with PKCE, state and nonce), and
 * who came back (the code exchanged, the answer checked). Implemented for OpenID Connect
 * providers (openid-client) and GitHub.
 */

/** What a sign-in at the provider is bound to: generated per attempt, kept in the store until the callback. */
export interface UpstreamChecks {
  readonly state: string;
  readonly nonce: string;
  readonly codeVerifier: string;
}

/** What our own authorization request asks of the sign-in: prompt=login and max_age ask the upstream for a fresh one. */
export interface SignInDemands {
  readonly freshSignIn: boolean;
  readonly maxAge?: number | undefined;
}

/** The upstream's tokens, when the provider keeps them (`keep_tokens`), and its ID token (for sign-out). */
export interface UpstreamTokens {
  readonly accessToken: string;
  readonly refreshToken?: string | undefined;
  /** Seconds since the epoch; undefined: the provider did not say. */
  readonly expiresAt?: number | undefined;
  readonly scope?: string | undefined;
  readonly idToken?: string | undefined;
}

/** Who signed in upstream. */
export interface UpstreamIdentity {
  /** The upstream's stable subject: the ID token's `sub`, GitHub's numeric user id (never the login). */
  readonly subject: string;
  /** The standard claims we map (email, email_verified, name, preferred_username, picture), as userinfo serves them. */
  readonly profile: Readonly<Record<string, unknown>>;
  /** Every claim the upstream said, for `required_claims`. */
  readonly claims: Readonly<Record<string, unknown>>;
  /** GitHub: the organizations the user belongs to, when `allowed_organizations` asks. */
  readonly organizations?: readonly string[] | undefined;
  /** RFC 8176 methods the upstream reports (its ID token's `amr`), if any. */
  readonly amr?: readonly string[] | undefined;
  /** When the user authenticated at the upstream (its ID token's `auth_time`), if it said. */
  readonly authTime?: number | undefined;
  readonly tokens: UpstreamTokens;
}

/** A sign-in the upstream ended without a user: the user cancelled, the provider refused or failed. */
export class UpstreamSignInFailed extends Error {
  constructor(
    /** For the audit log: `upstream_error`, `cancelled`, `invalid_callback`, `provider_unavailable`, … */
    readonly reason: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'UpstreamSignInFailed';
  }
}

export interface UpstreamProvider {
  readonly config: ProviderConfig;
  /**
   * The origin of the provider's authorization endpoint (as last discovered, else its
   * issuer's or base URL's): the login page's form may be redirected there (CSP form-action).
   */
  authorizationOrigin(): string;
  /**
   * Learns what authorizationOrigin() and a sign-in need (an OpenID Connect provider's
   * discovery), unless known; rejects with UpstreamSignInFailed when the provider cannot be discovered.
   */
  prepare(): Promise<void>;
  /** The authorization URL at the provider; throws UpstreamSignInFailed when the provider cannot be reached (discovery). */
  authorizationUrl(checks: UpstreamChecks, demands: SignInDemands): Promise<URL>;
  /** The callback as the browser brought it back: exchanges the code and says who signed in. */
  complete(callback: URL, checks: UpstreamChecks): Promise<UpstreamIdentity>;
  /** Fresh tokens from the upstream's refresh token (keep_tokens). */
  refresh(refreshToken: string): Promise<UpstreamTokens>;
  /** Where the browser ends the upstream session (`end_session`), coming back to `returnTo`; undefined when the provider has no such endpoint. */
  endSessionUrl(idTokenHint: string | undefined, returnTo: string, state: string): Promise<URL | undefined>;
}

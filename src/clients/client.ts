import type { SigningAlgorithm } from '@oauth2-token-service/verifier/algorithms';
import type { ResponseType } from '../oauth/response-mode.js';
import type { ClientAssertionAlgorithm } from '../oauth/client-assertion.js';
import type { ClientKeysSource } from './client-jwks.js';
import { JWT_BEARER_GRANT, TOKEN_EXCHANGE_GRANT, type TokenExchangePolicy } from './token-exchange-policy.js';

/** A client as the server uses it, from CLIENTS_FILE (registry.ts), registration or a metadata document. */

/** RFC 8628 §3.4: the grant type of the device access token request. */
export const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

export const GRANT_TYPES = [
  'authorization_code',
  'implicit',
  'password',
  'client_credentials',
  'refresh_token',
  TOKEN_EXCHANGE_GRANT,
  JWT_BEARER_GRANT,
  DEVICE_CODE_GRANT,
] as const;
export const AUTH_METHODS = ['client_secret_basic', 'client_secret_post', 'private_key_jwt', 'none'] as const;

export type GrantTypeName = (typeof GRANT_TYPES)[number];
export type ClientAuthMethod = (typeof AUTH_METHODS)[number];

export interface Client {
  readonly clientId: string;
  readonly clientName: string | undefined;
  /** The client's home page (RFC 7591 §2 client_uri): the error page links to it for a client of CLIENTS_FILE. */
  readonly clientUri?: string | undefined;
  /** The client's logo (RFC 7591 §2 logo_uri), shown on the login and consent pages. */
  readonly logoUri?: string | undefined;
  /** SHA-256 digest of the client secret; undefined for public clients. */
  readonly secretDigest: Buffer | undefined;
  readonly redirectUris: readonly string[];
  readonly grantTypes: ReadonlySet<GrantTypeName>;
  readonly responseTypes: ReadonlySet<ResponseType>;
  readonly scope: readonly string[];
  readonly authMethod: ClientAuthMethod;
  /** A resource server the operator allows to introspect every client's tokens, not only its own. */
  readonly introspectAllTokens: boolean;
  /** Web origins whose pages may call the token and revocation endpoints (see origins.ts). */
  readonly corsOrigins: ReadonlySet<string>;
  /** First-party: the consent page is skipped (the operator vouches for the client). */
  readonly skipConsent?: true;
  /** The URIs /oauth2/logout may redirect to after signing out (exact match). */
  readonly postLogoutRedirectUris?: readonly string[];
  /** OpenID Connect Registration §2 id_token_signed_response_alg; undefined: RS256, the default, applied by the ID-token code. */
  readonly idTokenSignedResponseAlg?: SigningAlgorithm;
  /** OpenID Connect Registration §2 default_max_age: the max_age of a request that sends none, in seconds. */
  readonly defaultMaxAge?: number;
  /** OpenID Connect Registration §2 require_auth_time: every ID token carries auth_time. */
  readonly requireAuthTime?: true;
  /** RFC 8693: what the client may exchange; only a client of CLIENTS_FILE has one. */
  readonly tokenExchange?: TokenExchangePolicy;
  /** private_key_jwt (RFC 7523 §2.2): where the public keys of its assertions are. */
  readonly keys?: ClientKeysSource;
  /** token_endpoint_auth_signing_alg: the one algorithm its assertions may use; any we offer when undefined. */
  readonly assertionSigningAlg?: ClientAssertionAlgorithm;
  /** RFC 9449 §5.2: "dpop_bound_access_tokens": every token request of this client must carry a DPoP proof. */
  readonly dpopBoundAccessTokens?: true;
  /** Described by its Client ID Metadata Document, fetched from its client_id: not pre-registered (metadata-document.ts). */
  readonly fromMetadataDocument?: true;
  /** Registered by itself at the registration endpoint (RFC 7591): not reviewed by the operator (registrations.ts). */
  readonly dynamicallyRegistered?: true;
  /** Disabled by the operator (`"disabled": true`): unknown to every endpoint (ClientRegistry.get). */
  readonly disabled?: true;
}

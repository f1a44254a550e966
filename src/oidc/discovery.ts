import type { Endpoints } from '../endpoints.js';
import { STANDARD_CLAIMS } from '../users/claims.js';

/**
 * OpenID Connect Discovery 1.0 §3: the OpenID Provider Metadata, served at
 * `<issuer>/.well-known/openid-configuration` (§4). The same issuer and endpoints as the
 * RFC 8414 document, plus what only OpenID Connect defines. The signing algorithms are
 * those an ID token may be signed with (the client's `id_token_signed_response_alg`);
 * §3: "The algorithm RS256 MUST be included."
 */

/** The claims an ID token or userinfo may carry: those of the ID token (§2) and the standard ones (§5.1). */
const ID_TOKEN_CLAIMS = ['iss', 'sub', 'aud', 'exp', 'iat', 'auth_time', 'nonce', 'at_hash', 'azp', 'sid', 'amr'];

export interface ProviderMetadataOptions {
  readonly endpoints: Endpoints;
  /** The algorithms ID tokens can be signed with (RS256 first). */
  readonly idTokenAlgorithms: readonly string[];
}

export function openidProviderMetadata(
  oauthMetadata: Readonly<Record<string, unknown>>,
  options: ProviderMetadataOptions,
): Record<string, unknown> {
  return {
    ...oauthMetadata,
    userinfo_endpoint: options.endpoints.url('userinfo'),
    // §3: "subject_types_supported: REQUIRED"; we use one sub per user for every client.
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: options.idTokenAlgorithms,
    claims_supported: [...ID_TOKEN_CLAIMS, ...Object.keys(STANDARD_CLAIMS)],
    // §3: "If omitted, the default value is false" for the claims and request parameters, but
    // "true" for request_uri_parameter_supported: said explicitly, none is supported.
    claims_parameter_supported: false,
    request_parameter_supported: false,
    request_uri_parameter_supported: false,
  };
}

/** How client authentication failed, as events report it (src/events/types.ts). */

/** How a client tried to authenticate (RFC 6749 §2.3, RFC 7523 §2.2); `none`: its client_id alone. */
export type ClientAuthenticationMethod = 'client_secret_basic' | 'client_secret_post' | 'private_key_jwt' | 'none';

/**
 * Which check refused a client's credentials: a fixed code for the audit log and a metric
 * label, never sent to the client (every refusal answers the same invalid_client).
 */
export type ClientAuthenticationFailure =
  /** No client with the id sent (or the assertion's sub). */
  | 'unknown_client'
  /** A secret that does not match the client's digest. */
  | 'wrong_secret'
  /** A confidential client that sent its client_id alone. */
  | 'credentials_missing'
  /** Credentials of a kind the client is not registered for: a secret, or an assertion, from a client without that method. */
  | 'wrong_method'
  /** A public client at an endpoint for confidential clients only (introspection). */
  | 'public_client'
  /** Not a signed JWT, no sub (and no client_id), exp or jti missing, a claim of the wrong type. */
  | 'malformed'
  | 'algorithm_not_allowed'
  /** A `typ` of another kind of token (at+jwt, dpop+jwt, …). */
  | 'wrong_type'
  | 'wrong_issuer'
  | 'wrong_subject'
  /** An `aud` other than our issuer identifier alone (or, without RFC 7523bis's typ and the strict setting, our token endpoint URL). */
  | 'wrong_audience'
  | 'expired'
  /** exp too far ahead, or iat too long ago. */
  | 'lifetime_too_long'
  /** nbf not reached, or iat in the future. */
  | 'not_yet_valid'
  /** No key of the client for the algorithm and kid. */
  | 'unknown_kid'
  /** Several keys of the client could have signed and the assertion names no kid. */
  | 'ambiguous_key'
  /** The client's jwks_uri could not be fetched or used, or its key cannot be imported. */
  | 'keys_unavailable'
  | 'bad_signature'
  /** The assertion's jti was used before. */
  | 'replayed';

import { OAuthError } from './oauth-error.js';

/** The error codes of dynamic registration (RFC 7591), bearer tokens (RFC 6750) and DPoP (RFC 9449). */

/** RFC 7591 §3.2.2: "The value of one or more redirection URIs is invalid." */
export class InvalidRedirectUri extends OAuthError {
  readonly error = 'invalid_redirect_uri';
}

/** RFC 7591 §3.2.2: "The value of one of the client metadata fields is invalid and the server has rejected this request." */
export class InvalidClientMetadata extends OAuthError {
  readonly error = 'invalid_client_metadata';
}

/**
 * RFC 6750 §3.1: "The access token provided is expired, revoked, malformed, or invalid for
 * other reasons. The resource SHOULD respond with the HTTP 401 (Unauthorized) status code."
 * Used for the initial access token (RFC 7591 §3) and the registration access token (RFC 7592 §2).
 */
export class InvalidToken extends OAuthError {
  readonly error = 'invalid_token';
  override readonly statusCode = 401;
}

/**
 * RFC 6750 §3.1: "The request requires higher privileges than provided by the access
 * token. The resource server SHOULD respond with the HTTP 403 (Forbidden) status code".
 */
export class InsufficientScope extends OAuthError {
  readonly error = 'insufficient_scope';
  override readonly statusCode = 403;
}

/** Too many registrations from one client address in the window: 429 with Retry-After. */
export class TooManyRegistrations extends OAuthError {
  readonly error = 'invalid_request';
  override readonly statusCode = 429;
  constructor(override readonly retryAfterSeconds: number) {
    super(`too many client registrations from this address: retry after ${retryAfterSeconds} seconds`);
  }
}

/** RFC 9449 §5: "invalid_dpop_proof" when the DPoP proof is invalid (400 at the token endpoint). */
export class InvalidDpopProof extends OAuthError {
  readonly error = 'invalid_dpop_proof';
}

/**
 * RFC 9449 §8: the proof must carry a nonce from us; the answer is 400 "use_dpop_nonce"
 * with the nonce to use in the `DPoP-Nonce` header.
 */
export class UseDpopNonce extends OAuthError {
  readonly error = 'use_dpop_nonce';
  constructor(
    description: string,
    readonly nonce: string,
  ) {
    super(description);
  }
}

/**
 * Where an error of an authorization request goes back to once the client and its redirect
 * URI are known valid: that URI, in the request's response mode, with its state
 * (src/oauth/response-mode.ts builds it).
 */
export interface RedirectTarget {
  readonly redirectUri: string;
  readonly responseMode: 'query' | 'fragment' | 'form_post';
  readonly state: string | undefined;
}

/**
 * One error hierarchy for every protocol failure (RFC 6749 §4.1.2.1, §4.2.2.1, §5.2).
 * Each subclass fixes its `error` code, so callers and tests narrow on `err.error`.
 */

export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'invalid_scope'
  | 'invalid_target'
  | 'access_denied'
  | 'unsupported_response_type'
  | 'server_error'
  | 'temporarily_unavailable'
  // RFC 7591 §3.2.2 (client registration)
  | 'invalid_redirect_uri'
  | 'invalid_client_metadata'
  // RFC 6750 §3.1 (a bearer token: registration and initial access tokens)
  | 'invalid_token'
  // OpenID Connect Core 1.0 §3.1.2.6 (prompt=none)
  | 'login_required'
  | 'consent_required'
  // RFC 9449 §5 (DPoP at the token endpoint), §8 (nonces)
  | 'invalid_dpop_proof'
  | 'use_dpop_nonce';

export interface OAuthErrorOptions {
  /** What went wrong underneath; logged, never sent. */
  readonly cause?: unknown;
}

/**
 * RFC 6749 §5.2: "Values for the "error_description" parameter MUST NOT include
 * characters outside the set %x20-21 / %x23-5B / %x5D-7E." Descriptions may quote what a
 * client sent (a parameter name), so every one is brought into that set here, once.
 */
export function toErrorDescription(text: string): string {
  return text
    .replace(/"/g, "'")
    .replace(/\\/g, '/')
    .replace(/[^\x20-\x7e]/g, '?');
}

export abstract class OAuthError extends Error {
  abstract readonly error: OAuthErrorCode;
  /** HTTP status when the error is returned as JSON from a back-channel endpoint. */
  readonly statusCode: number = 400;
  /**
   * Where the authorization endpoint may send this error back to the client. RFC 6749
   * §4.1.2.1: with a missing or invalid client or redirect URI the server "MUST NOT
   * automatically redirect the user-agent"; only once both are valid does an error get a
   * target. Undefined: the user sees an error page.
   */
  redirectTo: RedirectTarget | undefined;

  readonly description: string;

  /** Sent as `Retry-After` when the error is answered as JSON (a limit, an overload). */
  readonly retryAfterSeconds?: number | undefined;

  constructor(description: string, options: OAuthErrorOptions = {}) {
    super(description, options.cause === undefined ? undefined : { cause: options.cause });
    this.description = toErrorDescription(description);
    this.name = new.target.name;
  }

  /** Marks the error as one the client receives at `target`. */
  redirectingTo(target: RedirectTarget): this {
    this.redirectTo = target;
    return this;
  }

  toJSON(): { error: OAuthErrorCode; error_description: string } {
    return { error: this.error, error_description: this.description };
  }
}

export class InvalidRequest extends OAuthError {
  readonly error = 'invalid_request';
}

/**
 * RFC 6749 §5.2: "The authorization server MAY return an HTTP 401 (Unauthorized)
 * status code to indicate which HTTP authentication schemes are supported. If the
 * client attempted to authenticate via the "Authorization" request header field,
 * the authorization server MUST respond with an HTTP 401 (Unauthorized) status
 * code and include the "WWW-Authenticate" response header field".
 */
export class InvalidClient extends OAuthError {
  readonly error = 'invalid_client';
  override readonly statusCode = 401;
}

export class InvalidGrant extends OAuthError {
  readonly error = 'invalid_grant';
}

export class UnauthorizedClient extends OAuthError {
  readonly error = 'unauthorized_client';
}

export class UnsupportedGrantType extends OAuthError {
  readonly error = 'unsupported_grant_type';
}

export class InvalidScope extends OAuthError {
  readonly error = 'invalid_scope';
}

/**
 * RFC 8707 §2: "invalid_target: The requested resource is invalid, missing, unknown, or
 * malformed." It "can also be used to inform the client that it has requested an invalid
 * combination of resource and scope."
 */
export class InvalidTarget extends OAuthError {
  readonly error = 'invalid_target';
}

/**
 * A login or consent form that fails the anti-CSRF check (or whose signed request was
 * altered): refused with 403 on a page, never redirected anywhere.
 */
export class FormRefused extends OAuthError {
  readonly error = 'invalid_request';
  override readonly statusCode = 403;
}

export class AccessDenied extends OAuthError {
  readonly error = 'access_denied';
}

/**
 * OpenID Connect Core 1.0 §3.1.2.6, answering prompt=none: "The Authorization Server
 * requires End-User authentication. This error MAY be returned when the prompt parameter
 * value in the Authentication Request is none, but the Authentication Request cannot be
 * completed without displaying a user interface for End-User authentication."
 */
export class LoginRequired extends OAuthError {
  readonly error = 'login_required';
}

/** §3.1.2.6: "The Authorization Server requires End-User consent." (prompt=none) */
export class ConsentRequired extends OAuthError {
  readonly error = 'consent_required';
}

export class UnsupportedResponseType extends OAuthError {
  readonly error = 'unsupported_response_type';
}

/** Never carries internals: the description is fixed, the cause is only logged. */
export class ServerError extends OAuthError {
  readonly error = 'server_error';
  override readonly statusCode = 500;
  constructor(description = 'the authorization server encountered an unexpected condition', options: OAuthErrorOptions = {}) {
    super(description, options);
  }
}

export class TemporarilyUnavailable extends OAuthError {
  readonly error = 'temporarily_unavailable';
  override readonly statusCode: number = 503;
  constructor(
    description = 'the authorization server is temporarily unavailable, try again later',
    override readonly retryAfterSeconds?: number,
    options: OAuthErrorOptions = {},
  ) {
    super(description, options);
  }
}

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

/** Raised by a store when it cannot confirm an operation (timeout, connection lost). */
export class StoreUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreUnavailableError';
  }
}

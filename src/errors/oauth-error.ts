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
  // OpenID Connect Core 1.0 §3.1.2.6 (prompt=none and the request object parameters)
  | 'login_required'
  | 'consent_required'
  | 'interaction_required'
  | 'request_not_supported'
  | 'request_uri_not_supported'
  // RFC 6750 §3.1 (a token without the scope a resource requires)
  | 'insufficient_scope'
  // RFC 9449 §5 (DPoP at the token endpoint), §8 (nonces)
  | 'invalid_dpop_proof'
  | 'use_dpop_nonce'
  // RFC 8628 §3.5 (the device authorization grant)
  | 'authorization_pending'
  | 'slow_down'
  | 'expired_token';

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

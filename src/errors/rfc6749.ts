import { OAuthError, type OAuthErrorOptions } from './oauth-error.js';

/** The error codes of RFC 6749 (§4.1.2.1, §5.2), RFC 8707 and OpenID Connect Core §3.1.2.6, one class each. */

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

/**
 * §3.1.2.6: "The Authorization Server requires End-User interaction of some form to
 * proceed." (prompt=none, when neither sign-in nor consent is what is missing)
 */
export class InteractionRequired extends OAuthError {
  readonly error = 'interaction_required';
}

/** §3.1.2.6: "The OP does not support use of the request parameter" (§6). */
export class RequestNotSupported extends OAuthError {
  readonly error = 'request_not_supported';
}

/** §3.1.2.6: "The OP does not support use of the request_uri parameter" (§6). */
export class RequestUriNotSupported extends OAuthError {
  readonly error = 'request_uri_not_supported';
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

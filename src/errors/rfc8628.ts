import { OAuthError } from './oauth-error.js';

/** The error codes of the device access token response (RFC 8628 §3.5), each 400 as RFC 6749 §5.2 answers. */

/** "The authorization request is still pending as the end user hasn't yet completed the user-interaction steps". */
export class AuthorizationPending extends OAuthError {
  readonly error = 'authorization_pending';
}

/**
 * "A variant of "authorization_pending", the authorization request is still pending and
 * polling should continue, but the interval MUST be increased by 5 seconds for this and all
 * subsequent requests."
 */
export class SlowDown extends OAuthError {
  readonly error = 'slow_down';
}

/** "The "device_code" has expired, and the device authorization session has concluded." */
export class ExpiredToken extends OAuthError {
  readonly error = 'expired_token';
}

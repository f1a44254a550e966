import { OAuthError, TemporarilyUnavailable } from '../errors/index.js';

/** What the password grant answers when the sign-in limits refuse an attempt (src/users/sign-in.ts). */

/**
 * Throttled after repeated failures: 429 with Retry-After. The code stays
 * invalid_grant, the one RFC 6749 §5.2 gives for refused resource owner credentials.
 */
export class TooManyFailedAttempts extends OAuthError {
  readonly error = 'invalid_grant';
  override readonly statusCode = 429;
  constructor(override readonly retryAfterSeconds: number) {
    super(`too many failed attempts: retry after ${retryAfterSeconds} seconds`);
  }
}

/**
 * Every password verification slot is taken (PASSWORD_VERIFY_CONCURRENCY and its queue):
 * 503 with Retry-After. RFC 6749 §4.1.2.1 defines temporarily_unavailable as "unable to
 * handle the request due to a temporary overloading", exactly this case; §5.2 lists no
 * overload code for the token endpoint, and a client that does not know this one still
 * reads HTTP 503 + Retry-After (RFC 9110 §15.6.4). invalid_grant would tell the client
 * the password was wrong.
 */
export class SignInBusy extends TemporarilyUnavailable {
  constructor(retryAfterSeconds: number) {
    super(`too many sign-ins in progress: retry after ${retryAfterSeconds} second${retryAfterSeconds === 1 ? '' : 's'}`, retryAfterSeconds);
  }
}

/**
 * The sign-in limit is held by attempts still being checked, not by failures, and none
 * finished within the wait: 429 with Retry-After (RFC 6585 §4), as the limit answers, but
 * temporarily_unavailable, since nothing failed (TooManyFailedAttempts' invalid_grant
 * would send the client away for the whole window).
 */
export class SignInChecksInFlight extends TemporarilyUnavailable {
  override readonly statusCode = 429;
  constructor(retryAfterSeconds: number) {
    super(
      `sign-in attempts for this username or address are still being checked: retry after ${retryAfterSeconds} second${retryAfterSeconds === 1 ? '' : 's'}`,
      retryAfterSeconds,
    );
  }
}

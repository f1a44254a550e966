import { createHash } from 'node:crypto';
import type { Parameters } from '../oauth/form-params.js';
import type { AuthenticatedUser } from './browser-session.js';
import type { Signer } from './signer.js';

/**
 * The mark a sign-in leaves on the redirect back to the authorization endpoint: "this
 * session was started on the login page of this very request". It lets prompt=login and
 * max_age be satisfied by that sign-in (without it they would ask again forever), and
 * nothing else: it is a MAC over the session's subject, sign-in time and id and the
 * request's parameters, good for a short while after the sign-in. It carries none of them:
 * the URL (access logs, browser history) shows 43 opaque characters, and only the session
 * cookie that goes with it can be checked against it.
 */

/** The query parameter that carries the mark; removed before the request is validated or carried on. */
export const SIGN_IN_MARK_PARAMETER = 'signed_in';

const MARK_TTL_SECONDS = 300;

function digestOf(parameters: Parameters): string {
  return createHash('sha256').update(JSON.stringify(parameters)).digest('base64url');
}

/** What the mark is the MAC of: the session's sign-in and the request. */
function boundTo(user: AuthenticatedUser, parameters: Parameters): string {
  return JSON.stringify([user.sub, user.authTime, user.sid ?? null, digestOf(parameters)]);
}

export function signInMark(signer: Signer, user: AuthenticatedUser, parameters: Parameters): string {
  return signer.macOf('sign-in', boundTo(user, parameters));
}

/** True when `mark` was made for this session's sign-in on this request, within MARK_TTL_SECONDS of it. */
export function isSignInMarkFor(
  signer: Signer,
  mark: string | undefined,
  user: AuthenticatedUser | undefined,
  parameters: Parameters,
  now: number,
): boolean {
  if (!user || now >= user.authTime + MARK_TTL_SECONDS) return false;
  return signer.isMacOf('sign-in', boundTo(user, parameters), mark);
}

import { createHash } from 'node:crypto';
import type { Parameters } from '../oauth/form-params.js';
import type { AuthenticatedUser } from './browser-session.js';
import type { Signer } from './signer.js';

/**
 * The mark a sign-in leaves on the redirect back to the authorization endpoint: "this
 * session was started on the login page of this very request". It lets prompt=login and
 * max_age be satisfied by that sign-in (without it they would ask again forever), and
 * nothing else: it is signed, bound to the request's parameters and to the session's
 * subject and sign-in time, and short-lived.
 */

/** The query parameter that carries the mark; removed before the request is validated or carried on. */
export const SIGN_IN_MARK_PARAMETER = 'signed_in';

const MARK_TTL_SECONDS = 300;

interface MarkPayload {
  readonly sub: string;
  readonly auth_time: number;
  readonly request: string;
}

function digestOf(parameters: Parameters): string {
  return createHash('sha256').update(JSON.stringify(parameters)).digest('base64url');
}

export function signInMark(signer: Signer, user: AuthenticatedUser, parameters: Parameters): string {
  const payload: MarkPayload = { sub: user.sub, auth_time: user.authTime, request: digestOf(parameters) };
  return signer.sign('sign-in', payload, user.authTime + MARK_TTL_SECONDS);
}

/** True when `mark` was made for this session's sign-in on this request. */
export function isSignInMarkFor(
  signer: Signer,
  mark: string | undefined,
  user: AuthenticatedUser | undefined,
  parameters: Parameters,
  now: number,
): boolean {
  if (!user || mark === undefined) return false;
  const payload = signer.verify<MarkPayload>('sign-in', mark, now);
  return payload?.sub === user.sub && payload.auth_time === user.authTime && payload.request === digestOf(parameters);
}

import { randomBytes, timingSafeEqual } from 'node:crypto';
import { type Clock, nowSeconds } from '../clock.js';
import type { Endpoints } from '../endpoints.js';
import { CODE_CHALLENGE_METHOD, s256CodeChallenge } from '../oauth/pkce.js';
import type { CookieJar, CookieOptions } from '../session/browser-session.js';
import type { BrowserCookies } from '../session/cookies.js';
import type { Signer } from '../session/signer.js';
import { CONSOLE_CLIENT_ID, CONSOLE_SCOPE, consoleRedirectUri } from './client.js';

/**
 * The console's sign-in as a client of the authorization endpoint: code flow with PKCE
 * (S256), `state` and `nonce`, and for the console the admin API as the resource (RFC 8707).
 * What the callback needs (state, nonce, code verifier, where to return) is sealed in a
 * cookie of its own, SameSite=Lax so that it comes back with the authorization endpoint's
 * redirect (a top-level GET), readable by no one and good for ten minutes: any instance
 * finishes a sign-in another began, and no store is involved.
 *
 * `/account` signs in the same way, with `scope=openid` alone: what it needs is the browser
 * session that the sign-in starts; the code that comes back is not redeemed (its grant is
 * revoked at the callback).
 */

/** Who asked: the console (its tokens are kept), or the account page (only the session counts). */
export type SignInPurpose = 'console' | 'account';

export interface SignInTransaction {
  readonly state: string;
  readonly nonce: string;
  readonly verifier: string;
  readonly purpose: SignInPurpose;
  /** A path of the console or of /account, to go back to once signed in. */
  readonly returnTo: string;
}

/** What the callback found: the code to redeem, or why there is none. */
export type SignInCallback =
  | { readonly ok: true; readonly code: string; readonly transaction: SignInTransaction }
  | {
      readonly ok: false;
      /** `expired`: no sign-in in progress in this browser (or older than ten minutes); `mismatch`: state or iss wrong; `refused`: an error came back. */
      readonly reason: 'expired' | 'mismatch' | 'refused';
      /** The RFC 6749 error that came back (refused). */
      readonly error?: string;
      readonly transaction?: SignInTransaction;
    };

const SIGN_IN_TTL_SECONDS = 600;
const random = () => randomBytes(32).toString('base64url');

function sameText(a: string, b: string | null): boolean {
  if (b === null) return false;
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export class ConsoleSignIn {
  constructor(
    private readonly signer: Signer,
    private readonly endpoints: Endpoints,
    private readonly cookies: BrowserCookies,
    private readonly clock: Clock,
  ) {}

  /** Starts a sign-in: the transaction sealed in its cookie, and the authorization request's URL (below the issuer's path). */
  begin(jar: CookieJar, purpose: SignInPurpose, returnTo: string): string {
    const transaction: SignInTransaction = { state: random(), nonce: random(), verifier: random(), purpose, returnTo };
    const now = nowSeconds(this.clock);
    jar.set(this.cookies.consoleSignIn, this.signer.seal('console-sign-in', transaction, now + SIGN_IN_TTL_SECONDS), {
      ...this.cookieOptions(),
      maxAge: SIGN_IN_TTL_SECONDS,
    });
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: CONSOLE_CLIENT_ID,
      redirect_uri: consoleRedirectUri(this.endpoints),
      scope: purpose === 'console' ? CONSOLE_SCOPE.join(' ') : 'openid',
      state: transaction.state,
      nonce: transaction.nonce,
      code_challenge: s256CodeChallenge(transaction.verifier),
      code_challenge_method: CODE_CHALLENGE_METHOD,
    });
    if (purpose === 'console') query.append('resource', this.endpoints.url('admin'));
    return `${this.endpoints.path('authorize')}?${query.toString()}`;
  }

  /** The callback's query checked against this browser's sign-in (which ends here, whatever the outcome). */
  finish(jar: CookieJar, query: URLSearchParams): SignInCallback {
    const transaction = this.signer.open<SignInTransaction>('console-sign-in', jar.get(this.cookies.consoleSignIn), nowSeconds(this.clock));
    if (transaction === undefined) return { ok: false, reason: 'expired' };
    jar.set(this.cookies.consoleSignIn, '', { ...this.cookieOptions(), maxAge: 0 });
    if (!sameText(transaction.state, query.get('state'))) return { ok: false, reason: 'mismatch', transaction };
    // RFC 9207 §2.4: clients "MUST compare the iss parameter value to the issuer identifier of the authorization server".
    if (query.get('iss') !== this.endpoints.issuer) return { ok: false, reason: 'mismatch', transaction };
    const error = query.get('error');
    if (error !== null) return { ok: false, reason: 'refused', error: error.slice(0, 64), transaction };
    const code = query.get('code');
    if (code === null || code === '') return { ok: false, reason: 'mismatch', transaction };
    return { ok: true, code, transaction };
  }

  private cookieOptions(): CookieOptions {
    return { path: this.cookies.path, httpOnly: true, sameSite: 'lax', secure: this.cookies.secure };
  }
}

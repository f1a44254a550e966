import { randomBytes } from 'node:crypto';
import { type Clock, nowSeconds } from '../clock.js';
import type { BrowserCookies } from './cookies.js';
import { NO_SUBJECT_CHECKS, type SubjectChecks } from '../users/subject-status.js';
import type { Signer } from './signer.js';

/**
 * The signed-in user, in a signed cookie (nothing server-side), and CSRF protection for
 * the login and consent forms: a random cookie plus a form field that must carry its MAC
 * (signed double submit). Both cookies are HttpOnly and SameSite=Lax, named and scoped by
 * src/session/cookies.ts (`__Host-`, Secure, Path=/ when the issuer is https). Free of HTTP:
 * the route hands in the browser's cookies.
 */

const CSRF_SECRET = /^[A-Za-z0-9_-]{43}$/;

export interface AuthenticatedUser {
  readonly sub: string;
  /** Seconds since the epoch when the user signed in. */
  readonly authTime: number;
  /**
   * This browser session's id (OpenID Connect `sid`): random, one per sign-in. Sessions
   * started before sids existed have none.
   */
  readonly sid?: string | undefined;
  /** How the user signed in (RFC 8176 `amr` values, such as `pwd`). */
  readonly amr?: readonly string[] | undefined;
  /** The roles an upstream provider's rules gave a federated user at sign-in (a local user's are in USERS_FILE). */
  readonly roles?: readonly string[] | undefined;
  /** The upstream identity provider the user signed in through (its id); none for the password form. */
  readonly provider?: string | undefined;
}

interface SessionPayload {
  readonly sub: string;
  readonly auth_time: number;
  /** When this session was started (seconds); cookies made before it was recorded: auth_time. */
  readonly iat?: number;
  readonly sid?: string;
  readonly amr?: string[];
  readonly roles?: string[];
  readonly idp?: string;
}

const isStrings = (value: unknown): value is string[] => Array.isArray(value) && value.every((item) => typeof item === 'string');

export interface CookieOptions {
  readonly path: string;
  readonly httpOnly: true;
  readonly sameSite: 'lax';
  readonly secure: boolean;
  /** Seconds; without it the cookie ends with the browser session. */
  readonly maxAge?: number;
}

/** The cookies of one browser request, and the way to set them on its response. */
export interface CookieJar {
  get(name: string): string | undefined;
  set(name: string, value: string, options: CookieOptions): void;
}

export interface BrowserSessionOptions {
  readonly cookies: BrowserCookies;
  readonly ttlSeconds: number;
}

export class BrowserSession {
  constructor(
    private readonly signer: Signer,
    private readonly options: BrowserSessionOptions,
    private readonly clock: Clock,
    /** The operator's marks: a disabled user's sessions, and those started before their sessions were revoked, have ended. */
    private readonly subjects: SubjectChecks = NO_SUBJECT_CHECKS,
  ) {}

  /** The signed-in user; none without a valid cookie, or when the operator ended the session (checked in memory). */
  current(cookies: CookieJar): AuthenticatedUser | undefined {
    const session = this.signer.verify<SessionPayload>('session', cookies.get(this.options.cookies.session), nowSeconds(this.clock));
    if (!session) return undefined;
    if (!this.subjects.sessionStands(session.sub, typeof session.iat === 'number' ? session.iat : session.auth_time)) return undefined;
    return {
      sub: session.sub,
      authTime: session.auth_time,
      ...(typeof session.sid === 'string' ? { sid: session.sid } : {}),
      ...(Array.isArray(session.amr) ? { amr: session.amr } : {}),
      ...(isStrings(session.roles) ? { roles: session.roles } : {}),
      ...(typeof session.idp === 'string' ? { provider: session.idp } : {}),
    };
  }

  /**
   * Starts a session for `sub`, signed in by the methods `amr` names (RFC 8176), at
   * `authenticatedAt` (an upstream provider's `auth_time`) or now, with the `roles` its
   * sign-in decided and the `provider` it went through (a federated user's).
   */
  start(
    cookies: CookieJar,
    sub: string,
    amr: readonly string[] = [],
    authenticatedAt?: number,
    roles: readonly string[] = [],
    provider?: string,
  ): AuthenticatedUser {
    const now = nowSeconds(this.clock);
    const authTime = authenticatedAt ?? now;
    const sid = randomBytes(16).toString('base64url');
    const optional = { ...(amr.length > 0 ? { amr: [...amr] } : {}), ...(roles.length > 0 ? { roles: [...roles] } : {}) };
    const payload: SessionPayload = { sub, auth_time: authTime, iat: now, sid, ...optional, ...(provider ? { idp: provider } : {}) };
    const value = this.signer.sign('session', payload, now + this.options.ttlSeconds);
    cookies.set(this.options.cookies.session, value, { ...this.cookieOptions(), maxAge: this.options.ttlSeconds });
    return { sub, authTime, sid, ...optional, ...(provider ? { provider } : {}) };
  }

  /** Ends the session: the cookie is replaced by an empty one that expires at once. */
  end(cookies: CookieJar): void {
    cookies.set(this.options.cookies.session, '', { ...this.cookieOptions(), maxAge: 0 });
  }

  /** The token a form must carry; sets the CSRF cookie when the browser has none yet. */
  csrfToken(cookies: CookieJar): string {
    return this.signer.macOf('csrf', this.browserSecret(cookies));
  }

  /**
   * What binds a sign-in at an upstream provider to this browser: a MAC of its CSRF cookie
   * (set when it has none yet). The provider's callback must come back with the same cookie
   * (SameSite=Lax cookies go with a top-level GET), so a callback URL carried into another
   * browser signs nobody in there.
   */
  browserBinding(cookies: CookieJar): string {
    return this.signer.macOf('upstream-browser', this.browserSecret(cookies));
  }

  /** The binding of this browser, without setting a cookie: undefined when it has no CSRF cookie. */
  existingBrowserBinding(cookies: CookieJar): string | undefined {
    const secret = cookies.get(this.options.cookies.csrf);
    return secret && CSRF_SECRET.test(secret) ? this.signer.macOf('upstream-browser', secret) : undefined;
  }

  private browserSecret(cookies: CookieJar): string {
    let secret = cookies.get(this.options.cookies.csrf);
    if (!secret || !CSRF_SECRET.test(secret)) {
      secret = randomBytes(32).toString('base64url');
      cookies.set(this.options.cookies.csrf, secret, this.cookieOptions());
    }
    return secret;
  }

  /** True when the form's token is the MAC of this browser's CSRF cookie. */
  csrfTokenValid(cookies: CookieJar, token: string | undefined): boolean {
    const secret = cookies.get(this.options.cookies.csrf);
    return !!secret && this.signer.isMacOf('csrf', secret, token);
  }

  private cookieOptions(): CookieOptions {
    const { path, secure } = this.options.cookies;
    return { path, httpOnly: true, sameSite: 'lax', secure };
  }
}

import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type {} from '@fastify/cookie';
import type { AuthenticatedUser } from '../authorize/respond.js';
import type { Signer } from './signer.js';

/**
 * The signed-in user, in a signed cookie (nothing server-side), and CSRF protection for
 * the login and consent forms: a random cookie plus a form field that must carry its MAC
 * (signed double submit). Both cookies are HttpOnly and SameSite=Lax, Secure when the
 * issuer is https.
 */

const SESSION_COOKIE = 'oauth_session';
const CSRF_COOKIE = 'oauth_csrf';

export interface BrowserSessionOptions {
  /** Cookie path: the /oauth2 prefix of the issuer. */
  readonly path: string;
  readonly secure: boolean;
  readonly ttlSeconds: number;
}

export class BrowserSession {
  constructor(
    private readonly signer: Signer,
    private readonly options: BrowserSessionOptions,
    private readonly clock: () => number,
  ) {}

  current(request: FastifyRequest): AuthenticatedUser | undefined {
    const session = this.signer.verify<{ sub: string; auth_time: number }>('session', request.cookies[SESSION_COOKIE], this.now());
    return session ? { sub: session.sub, authTime: session.auth_time } : undefined;
  }

  start(reply: FastifyReply, sub: string): AuthenticatedUser {
    const authTime = this.now();
    const value = this.signer.sign('session', { sub, auth_time: authTime }, authTime + this.options.ttlSeconds);
    reply.setCookie(SESSION_COOKIE, value, { ...this.cookieOptions(), maxAge: this.options.ttlSeconds });
    return { sub, authTime };
  }

  /** The token a form must carry; sets the CSRF cookie when the browser has none yet. */
  csrfToken(request: FastifyRequest, reply: FastifyReply): string {
    let secret = request.cookies[CSRF_COOKIE];
    if (!secret || !/^[A-Za-z0-9_-]{43}$/.test(secret)) {
      secret = randomBytes(32).toString('base64url');
      reply.setCookie(CSRF_COOKIE, secret, this.cookieOptions());
    }
    return this.signer.macOf('csrf', secret);
  }

  /** True when the form's token is the MAC of this browser's CSRF cookie. */
  csrfTokenValid(request: FastifyRequest, token: string | undefined): boolean {
    const secret = request.cookies[CSRF_COOKIE];
    if (!secret || !token) return false;
    const expected = Buffer.from(this.signer.macOf('csrf', secret));
    const presented = Buffer.from(token);
    return expected.length === presented.length && timingSafeEqual(expected, presented);
  }

  private cookieOptions() {
    return { path: this.options.path, httpOnly: true, sameSite: 'lax' as const, secure: this.options.secure };
  }

  private now(): number {
    return Math.floor(this.clock() / 1000);
  }
}

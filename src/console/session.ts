import { decodeJwt } from 'jose';
import { type AdminCallerDependencies, adminCaller } from '../admin/callers.js';
import type { AdminActor } from '../admin/audit.js';
import { AdminProblem } from '../admin/problems.js';
import { type Clock, nowSeconds } from '../clock.js';
import { type GrantAdministrationDependencies, revokeGrantById } from '../grants/administration.js';
import type { AdminScope } from '../oauth/admin-scopes.js';
import type { CookieJar, CookieOptions } from '../session/browser-session.js';
import type { BrowserCookies } from '../session/cookies.js';
import type { Signer } from '../session/signer.js';
import type { SubjectChecks } from '../users/subject-status.js';
import type { SignInTransaction } from './sign-in.js';
import type { ConsoleTokens, ConsoleTokenSet } from './tokens.js';

/**
 * The console's session, a backend-for-frontend's: the access and refresh tokens stay on the
 * server's side of the browser. They travel sealed (AES-256-GCM, src/session/signer.ts) in an
 * HttpOnly, SameSite=Lax cookie (`__Host-` on https) that no script and no other site reads,
 * and that every instance opens (the key derives from SESSION_SECRET): nothing is stored.
 * Each page asks who acts (`access`): the access token is checked as the admin API checks it
 * (our verifier, the scope, revocation, the role), refreshed first when it ran out; the
 * operator's marks end the session as they end a browser session (disabled, sessions revoked).
 */

interface SessionPayload {
  readonly sub: string;
  /** When the session started (seconds): `sessions_revoked_at` ends those started at or before it. */
  readonly iat: number;
  readonly tokens: ConsoleTokenSet;
}

/** Who is at the console: an administrator acting with the scope asked, a person without the admin scopes, or nobody. */
export type ConsoleAccess =
  | { readonly kind: 'admin'; readonly actor: AdminActor; readonly sub: string }
  | { readonly kind: 'not-admin'; readonly sub: string }
  | { readonly kind: 'signed-out' };

export interface ConsoleSessionDependencies {
  readonly signer: Signer;
  readonly cookies: BrowserCookies;
  /** SESSION_TTL: how long a console session lasts at most. */
  readonly ttlSeconds: number;
  readonly clock: Clock;
  readonly tokens: ConsoleTokens;
  readonly callers: AdminCallerDependencies;
  readonly subjects: SubjectChecks;
  /** To revoke the console's grant at sign-out. */
  readonly grants: GrantAdministrationDependencies;
}

/** An access token this close to its expiry is refreshed first, so it does not run out during the page. */
const EXPIRY_MARGIN_SECONDS = 30;

export class ConsoleSessions {
  constructor(private readonly deps: ConsoleSessionDependencies) {}

  /** Redeems the code of a finished sign-in and starts the session of who signed in; false when the code was refused. */
  async start(jar: CookieJar, code: string, transaction: SignInTransaction): Promise<boolean> {
    const redeemed = await this.deps.tokens.redeem(code, transaction);
    if (!redeemed) return false;
    this.save(jar, { sub: redeemed.sub, iat: nowSeconds(this.deps.clock), tokens: redeemed.tokens });
    return true;
  }

  /** Who acts, for a page or a change that needs `scope`; the tokens refreshed (and the cookie rewritten) on the way. */
  async access(jar: CookieJar, scope: AdminScope): Promise<ConsoleAccess> {
    let session = this.current(jar);
    if (!session) return this.endedIn(jar);
    let refreshed = false;
    if (nowSeconds(this.deps.clock) >= session.tokens.expiresAt - EXPIRY_MARGIN_SECONDS) {
      session = await this.refresh(jar, session);
      if (!session) return this.endedIn(jar);
      refreshed = true;
    }
    for (;;) {
      try {
        const actor = await adminCaller({ token: session.tokens.accessToken }, scope, this.deps.callers);
        return { kind: 'admin', actor, sub: session.sub };
      } catch (err) {
        if (!(err instanceof AdminProblem)) throw err;
        if (err.code === 'insufficient-scope') return { kind: 'not-admin', sub: session.sub };
        // Revoked, or a user who lost the role: a fresh token says which (none, or one without the scopes).
        if (refreshed) return this.endedIn(jar);
        session = await this.refresh(jar, session);
        if (!session) return this.endedIn(jar);
        refreshed = true;
      }
    }
  }

  /** The signed-in person, without checking the token (the 403 page, sign-out); undefined when the session ended. */
  current(jar: CookieJar): SessionPayload | undefined {
    const session = this.deps.signer.open<SessionPayload>(
      'console-session',
      jar.get(this.deps.cookies.console),
      nowSeconds(this.deps.clock),
    );
    if (!session || typeof session.sub !== 'string' || typeof session.tokens?.accessToken !== 'string') return undefined;
    return this.deps.subjects.sessionStands(session.sub, session.iat) ? session : undefined;
  }

  /** Signs out of the console: its grant is revoked (the refresh token dies, introspection says inactive) and the cookie cleared. */
  async end(jar: CookieJar): Promise<void> {
    const session = this.current(jar);
    this.clear(jar);
    const grantId = session && grantIdOf(session.tokens.accessToken);
    if (grantId !== undefined) await revokeGrantById(grantId, this.deps.grants);
  }

  private async refresh(jar: CookieJar, session: SessionPayload): Promise<SessionPayload | undefined> {
    const refreshToken = session.tokens.refreshToken;
    const tokens = refreshToken === undefined ? undefined : await this.deps.tokens.refresh(refreshToken);
    if (!tokens) return undefined;
    const renewed = { ...session, tokens: { ...tokens, refreshToken: tokens.refreshToken ?? refreshToken } };
    this.save(jar, renewed);
    return renewed;
  }

  private endedIn(jar: CookieJar): ConsoleAccess {
    if (jar.get(this.deps.cookies.console) !== undefined) this.clear(jar);
    return { kind: 'signed-out' };
  }

  private save(jar: CookieJar, session: SessionPayload): void {
    const expiresAt = session.iat + this.deps.ttlSeconds;
    const maxAge = expiresAt - nowSeconds(this.deps.clock);
    jar.set(this.deps.cookies.console, this.deps.signer.seal('console-session', session, expiresAt), { ...this.cookieOptions(), maxAge });
  }

  private clear(jar: CookieJar): void {
    jar.set(this.deps.cookies.console, '', { ...this.cookieOptions(), maxAge: 0 });
  }

  private cookieOptions(): CookieOptions {
    return { path: this.deps.cookies.path, httpOnly: true, sameSite: 'lax', secure: this.deps.cookies.secure };
  }
}

/** The grant of an access token we issued (its `grant_id`), read without verifying: the token came sealed from us. */
function grantIdOf(accessToken: string): string | undefined {
  try {
    const grantId = decodeJwt(accessToken).grant_id;
    return typeof grantId === 'string' ? grantId : undefined;
  } catch {
    return undefined;
  }
}

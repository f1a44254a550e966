import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Test } from 'tap';
import { freePort } from '../../harness/ports.js';
import { formAction, formFields } from './browser-flow.js';
import { answerApi, type GithubAccount, type IssuedToken, sendJson } from './github-api.js';
import { authorizePage, errorPage, signInPage } from './github-pages.js';

export type { GithubAccount, GithubEmail, GithubOrganization } from './github-api.js';

/**
 * A small GitHub-compatible server for the tests (GitHub itself cannot be reached from
 * here), on 127.0.0.1 and free ports, as GitHub documents its OAuth apps:
 *
 * - `GET /login/oauth/authorize`: the page of the signed-in user with "Authorize" and
 *   "Cancel" (or at once, `autoApprove`, as for an app the user approved before); an
 *   unregistered `redirect_uri` gets an error page; Cancel comes back with
 *   `error=access_denied`. PKCE: only S256.
 * - `POST /login/oauth/access_token`: client credentials in the form or Basic; single-use
 *   codes valid 10 minutes, PKCE checked; errors as GitHub answers them, HTTP 200 with
 *   `error`, `error_description`, `error_uri`; JSON with `Accept: application/json`, a form
 *   otherwise. With `expiringTokens` (GitHub Apps' user tokens) tokens expire and come with a
 *   refresh token (`grant_type=refresh_token`, rotated).
 * - The REST API (github-api.ts): on an origin of its own as api.github.com, or under
 *   `{base}/api/v3` as GitHub Enterprise Server (`enterprise`).
 *
 * It records every request, and its clock moves with `advance()`.
 */

export interface GithubServerOptions {
  /** The OAuth app's registered "Authorization callback URL". */
  readonly callbackUrl: string;
  readonly clientId?: string;
  readonly clientSecret?: string;
  readonly appName?: string;
  /** GitHub Enterprise Server's layout: the API under `{base_url}/api/v3` instead of an origin of its own. */
  readonly enterprise?: boolean;
  /** Authorize without the page, as GitHub does for an app the user authorized before with these scopes. */
  readonly autoApprove?: boolean;
  /** User tokens that expire (8 hours) with a refresh token (6 months), as a GitHub App's. */
  readonly expiringTokens?: boolean;
}

export interface GithubRequest {
  /** `web` (github.com) or `api` (api.github.com, or `{base}/api/v3`). */
  readonly site: 'web' | 'api';
  readonly method: string;
  /** The path below the site (below `/api/v3` on Enterprise). */
  readonly path: string;
  /** The request's URL as it came (with `/api/v3` on Enterprise). */
  readonly url: string;
  readonly query: URLSearchParams;
  readonly headers: IncomingHttpHeaders;
  /** A form body, parsed. */
  readonly form: URLSearchParams | undefined;
}

interface IssuedCode {
  readonly clientId: string;
  readonly redirectUri: string | undefined;
  readonly userId: number;
  readonly scopes: readonly string[];
  readonly challenge: string | undefined;
  readonly expiresAt: number;
}

export const GITHUB_CLIENT_ID = 'Iv1.0123456789abcdef';
export const GITHUB_CLIENT_SECRET = 'github-test-secret-0123456789abcdef0123456789';
const CODE_TTL_MS = 10 * 60 * 1000;
const TOKEN_TTL_S = 8 * 3600;
const REFRESH_TTL_S = 15_897_600;
const KNOWN_SCOPES = new Set([
  'repo',
  'public_repo',
  'user',
  'read:user',
  'user:email',
  'user:follow',
  'read:org',
  'write:org',
  'admin:org',
  'gist',
]);
const TROUBLESHOOTING = 'https://docs.github.com/apps/managing-oauth-apps/troubleshooting-oauth-app-access-token-request-errors';
const DENIED_URI = 'https://docs.github.com/apps/managing-oauth-apps/troubleshooting-authorization-request-errors/#access-denied';

const random = (prefix: string) => `${prefix}${randomBytes(18).toString('base64url')}`;

/** The scopes GitHub grants for a requested `scope` (space or comma separated; unknown ones dropped). */
function grantedScopes(scope: string | null): string[] {
  return [...new Set((scope ?? '').split(/[\s,]+/).filter((s) => KNOWN_SCOPES.has(s)))];
}

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** GitHub's rule for an OAuth app: host and port as registered (any port on loopback), the path the callback's or below it. */
function redirectAllowed(redirectUri: string, registered: string): boolean {
  if (!URL.canParse(redirectUri)) return false;
  const asked = new URL(redirectUri);
  const callback = new URL(registered);
  const loopback = ['127.0.0.1', '[::1]'].includes(callback.hostname);
  const base = callback.pathname.endsWith('/') ? callback.pathname : `${callback.pathname}/`;
  return (
    asked.protocol === callback.protocol &&
    asked.hostname === callback.hostname &&
    (loopback || asked.port === callback.port) &&
    (asked.pathname === callback.pathname || asked.pathname.startsWith(base))
  );
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export class GithubServer {
  readonly requests: GithubRequest[] = [];
  readonly accounts = new Map<number, GithubAccount>();
  /** The user signed in at GitHub (its browser session; one for every browser, as the tests need). */
  signedIn: number | undefined;
  baseUrl = '';
  apiUrl = '';
  readonly clientId: string;
  readonly clientSecret: string;
  private offsetMs = 0;
  private readonly codes = new Map<string, IssuedCode>();
  private readonly tokens = new Map<string, IssuedToken>();
  private readonly refreshTokens = new Map<string, IssuedToken>();
  private readonly servers: Server[] = [];
  private readonly apiFailures = new Map<string, number>();

  private constructor(private readonly options: GithubServerOptions) {
    this.clientId = options.clientId ?? GITHUB_CLIENT_ID;
    this.clientSecret = options.clientSecret ?? GITHUB_CLIENT_SECRET;
  }

  static async start(t: Test, options: GithubServerOptions): Promise<GithubServer> {
    const github = new GithubServer(options);
    const web = await github.listen('web');
    github.baseUrl = `http://127.0.0.1:${web}`;
    github.apiUrl = options.enterprise ? `${github.baseUrl}/api/v3` : `http://127.0.0.1:${await github.listen('api')}`;
    t.teardown(() => github.close());
    return github;
  }

  /** The provider's entry for IDENTITY_PROVIDERS_FILE, pointing here. */
  provider(extra: Record<string, unknown> = {}): Record<string, unknown> {
    return {
      id: 'github',
      type: 'github',
      name: 'GitHub',
      client_id: this.clientId,
      client_secret: this.clientSecret,
      base_url: this.baseUrl,
      api_url: this.apiUrl,
      ...extra,
    };
  }

  addAccount(account: Partial<GithubAccount> & { id: number; login: string }): GithubAccount {
    const full: GithubAccount = {
      name: null,
      avatar_url: `https://avatars.githubusercontent.com/u/${account.id}?v=4`,
      email: null,
      emails: [],
      orgs: [],
      ...account,
    };
    this.accounts.set(full.id, full);
    return full;
  }

  signIn(account: GithubAccount | undefined): void {
    this.signedIn = account?.id;
  }

  /** Moves this server's clock (codes expire after 10 minutes, GitHub App tokens after 8 hours). */
  advance(seconds: number): void {
    this.offsetMs += seconds * 1000;
  }

  /** From now on the API answers `path` with `status` (GitHub's error body), as during an incident. */
  failApi(path: string, status: number): void {
    this.apiFailures.set(path, status);
  }

  requestsTo(site: 'web' | 'api', path: string): GithubRequest[] {
    return this.requests.filter((r) => r.site === site && r.path === path);
  }

  /** Stops answering (GitHub down); idempotent. */
  async close(): Promise<void> {
    await Promise.all(
      this.servers.splice(0).map((server) => {
        server.closeAllConnections();
        return new Promise<void>((resolve) => server.close(() => resolve()));
      }),
    );
  }

  private now(): number {
    return Date.now() + this.offsetMs;
  }

  private async listen(site: 'web' | 'api'): Promise<number> {
    const server = createServer((request, response) => {
      this.answer(site, request, response).catch((err: Error) => response.writeHead(500).end(err.message));
    });
    // A free port via harness/ports.ts; another one if it was taken in between.
    for (let attempt = 0; ; attempt++) {
      const port = await freePort();
      server.listen(port, '127.0.0.1');
      const [event] = await Promise.race([
        once(server, 'listening').then(() => ['listening']),
        once(server, 'error').then(() => ['error']),
      ]);
      if (event === 'listening') {
        this.servers.push(server);
        return port;
      }
      if (attempt === 5) throw new Error('no free port for the GitHub test server');
    }
  }

  private async answer(site: 'web' | 'api', request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const body = request.method === 'POST' ? await readBody(request) : '';
    const form = request.headers['content-type']?.startsWith('application/x-www-form-urlencoded') ? new URLSearchParams(body) : undefined;
    const onApi = site === 'api' || (this.options.enterprise === true && url.pathname.startsWith('/api/v3/'));
    const path = onApi && site === 'web' ? url.pathname.slice('/api/v3'.length) : url.pathname;
    this.requests.push({
      site: onApi ? 'api' : 'web',
      method: request.method ?? '',
      path,
      url: request.url ?? '/',
      query: url.searchParams,
      headers: request.headers,
      form,
    });
    if (onApi) {
      if (request.method !== 'GET')
        return sendJson(response, 404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' });
      const failure = this.apiFailures.get(path);
      if (failure !== undefined)
        return sendJson(response, failure, { message: 'Server Error', documentation_url: 'https://docs.github.com/rest' });
      const presented = /^(?:bearer|token)\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1];
      return answerApi(response, url, path, this.apiUrl, presented, presented === undefined ? undefined : this.tokenOf(presented));
    }
    if (path === '/login/oauth/authorize' && request.method === 'GET') return this.authorize(url.searchParams, response);
    if (path === '/login/oauth/authorize' && request.method === 'POST') return this.decide(form ?? new URLSearchParams(), response);
    if (path === '/session' && request.method === 'POST') return this.session(form ?? new URLSearchParams(), response);
    if (path === '/login/oauth/access_token' && request.method === 'POST')
      return this.accessToken(form ?? new URLSearchParams(), request.headers, response);
    response.writeHead(404, { 'content-type': 'text/html; charset=utf-8' }).end(errorPage('Not Found'));
  }

  private tokenOf(value: string): { token: IssuedToken; account: GithubAccount } | undefined {
    const token = this.tokens.get(value);
    const account = token ? this.accounts.get(token.userId) : undefined;
    if (!token || !account || (token.expiresAt !== undefined && token.expiresAt <= this.now())) return undefined;
    return { token, account };
  }

  /** GET /login/oauth/authorize: errors as pages (nothing goes to an unverified redirect URI), then sign-in, then the user's decision. */
  private authorize(query: URLSearchParams, response: ServerResponse): void {
    const html = (status: number, page: string): void =>
      void response.writeHead(status, { 'content-type': 'text/html; charset=utf-8' }).end(page);
    if (query.get('client_id') !== this.clientId) return html(404, errorPage('Not Found'));
    const redirectUri = query.get('redirect_uri');
    if (redirectUri !== null && !redirectAllowed(redirectUri, this.options.callbackUrl))
      return html(400, errorPage('The redirect_uri is not associated with this application.'));
    const challenge = query.get('code_challenge');
    if (challenge !== null && query.get('code_challenge_method') !== 'S256')
      return html(400, errorPage('Only the S256 code challenge method is supported.'));
    const account = this.signedIn === undefined ? undefined : this.accounts.get(this.signedIn);
    if (!account) return html(200, signInPage(`/login/oauth/authorize?${query.toString()}`));
    if (this.options.autoApprove) return this.redirectWithCode(query, account, response);
    html(200, authorizePage(this.options.appName ?? 'Test OAuth App', account.login, grantedScopes(query.get('scope')), query));
  }

  /** POST /session: the sign-in page's form (the login alone: a test server). */
  private session(form: URLSearchParams, response: ServerResponse): void {
    const account = [...this.accounts.values()].find((a) => a.login.toLowerCase() === (form.get('login') ?? '').toLowerCase());
    if (account) this.signedIn = account.id;
    const back = form.get('return_to') ?? '/';
    response.writeHead(302, { location: back.startsWith('/') ? back : '/' }).end();
  }

  /** POST of the authorize page: Authorize issues a code, Cancel says access_denied. */
  private decide(form: URLSearchParams, response: ServerResponse): void {
    const query = new URLSearchParams([...form].filter(([name]) => name !== 'authorize'));
    const account = this.signedIn === undefined ? undefined : this.accounts.get(this.signedIn);
    if (query.get('client_id') !== this.clientId || !account) return void response.writeHead(422).end('Unprocessable Entity');
    if (form.get('authorize') === '1') return this.redirectWithCode(query, account, response);
    const target = new URL(query.get('redirect_uri') ?? this.options.callbackUrl);
    target.searchParams.set('error', 'access_denied');
    target.searchParams.set('error_description', 'The user has denied your application access.');
    target.searchParams.set('error_uri', DENIED_URI);
    const state = query.get('state');
    if (state !== null) target.searchParams.set('state', state);
    response.writeHead(302, { location: target.href }).end();
  }

  private redirectWithCode(query: URLSearchParams, account: GithubAccount, response: ServerResponse): void {
    const code = randomBytes(10).toString('hex');
    const redirectUri = query.get('redirect_uri') ?? undefined;
    this.codes.set(code, {
      clientId: this.clientId,
      redirectUri,
      userId: account.id,
      scopes: grantedScopes(query.get('scope')),
      challenge: query.get('code_challenge') ?? undefined,
      expiresAt: this.now() + CODE_TTL_MS,
    });
    const target = new URL(redirectUri ?? this.options.callbackUrl);
    target.searchParams.set('code', code);
    const state = query.get('state');
    if (state !== null) target.searchParams.set('state', state);
    response.writeHead(302, { location: target.href }).end();
  }

  /** POST /login/oauth/access_token: the code (or, for expiring tokens, a refresh token) for an access token. */
  private accessToken(form: URLSearchParams, headers: IncomingHttpHeaders, response: ServerResponse): void {
    const json = (headers.accept ?? '').includes('application/json');
    const answer = (fields: Record<string, string | number>): void => {
      if (json) return sendJson(response, 200, fields);
      response
        .writeHead(200, { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' })
        .end(new URLSearchParams(Object.entries(fields).map(([k, v]): [string, string] => [k, String(v)])).toString());
    };
    const fail = (error: string, description: string, anchor = error.replaceAll('_', '-')) =>
      answer({ error, error_description: description, error_uri: `${TROUBLESHOOTING}/#${anchor}` });

    const basic = /^Basic\s+(\S+)$/i.exec(headers.authorization ?? '')?.[1];
    const [basicId, basicSecret] = basic ? Buffer.from(basic, 'base64').toString('utf8').split(':') : [];
    const clientId = form.get('client_id') ?? basicId;
    const clientSecret = form.get('client_secret') ?? basicSecret;
    if (clientId !== this.clientId || clientSecret === undefined || !sameSecret(clientSecret, this.clientSecret))
      return fail('incorrect_client_credentials', 'The client_id and/or client_secret passed are incorrect.');

    if (form.get('grant_type') === 'refresh_token') {
      const presented = form.get('refresh_token') ?? '';
      const old = this.refreshTokens.get(presented);
      this.refreshTokens.delete(presented);
      if (!this.options.expiringTokens || !old || (old.expiresAt ?? 0) <= this.now())
        return fail('bad_refresh_token', 'The refresh token passed is incorrect or expired.');
      return answer(this.issue(old.userId, old.scopes));
    }

    const code = form.get('code') ?? '';
    const issued = this.codes.get(code);
    // Single use: gone at the first exchange, whatever its outcome.
    this.codes.delete(code);
    const badCode = () => fail('bad_verification_code', 'The code passed is incorrect or expired.');
    if (!issued || issued.clientId !== clientId || issued.expiresAt <= this.now()) return badCode();
    const redirectUri = form.get('redirect_uri');
    if (redirectUri !== null && issued.redirectUri !== undefined && redirectUri !== issued.redirectUri)
      return fail('redirect_uri_mismatch', 'The redirect_uri MUST match the registered callback URL for this application.');
    if (issued.challenge !== undefined) {
      const verifier = form.get('code_verifier') ?? '';
      if (createHash('sha256').update(verifier).digest('base64url') !== issued.challenge) return badCode();
    }
    answer(this.issue(issued.userId, issued.scopes));
  }

  private issue(userId: number, scopes: readonly string[]): Record<string, string | number> {
    const expiring = this.options.expiringTokens === true;
    const accessToken = random(expiring ? 'ghu_' : 'gho_');
    this.tokens.set(accessToken, { userId, scopes, expiresAt: expiring ? this.now() + TOKEN_TTL_S * 1000 : undefined });
    if (!expiring) return { access_token: accessToken, token_type: 'bearer', scope: scopes.join(',') };
    const refreshToken = random('ghr_');
    this.refreshTokens.set(refreshToken, { userId, scopes, expiresAt: this.now() + REFRESH_TTL_S * 1000 });
    return {
      access_token: accessToken,
      expires_in: TOKEN_TTL_S,
      refresh_token: refreshToken,
      refresh_token_expires_in: REFRESH_TTL_S,
      scope: '',
      token_type: 'bearer',
    };
  }
}

/**
 * A browser's visit to GitHub's authorize URL: GitHub's page, its Authorize (or Cancel)
 * pressed when it shows one; the URL GitHub then sends the browser to (the callback).
 */
export async function visitGithub(url: string | URL, decision: 'authorize' | 'cancel' = 'authorize'): Promise<URL> {
  const first = await fetch(url, { redirect: 'manual' });
  if (first.status === 302) return new URL(first.headers.get('location') as string);
  const page = await first.text();
  if (first.status !== 200 || !page.includes('name="authorize"')) throw new Error(`GitHub answered ${first.status}: ${page}`);
  const decided = await fetch(new URL(formAction(page), url), {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ ...formFields(page), authorize: decision === 'authorize' ? '1' : '0' }),
  });
  return new URL(decided.headers.get('location') as string);
}

import { WEB_REDIRECT, WEB_SECRET } from './authorize-fixtures.js';
import { API, MCP, UNREGISTERED } from './resource-fixtures.js';
import { basic } from './server.js';

/**
 * A deterministic generator of hostile requests. Every value that would be secret in
 * real traffic carries MARKER, so a log can be searched for it; values the logs show on
 * purpose (client_id, scope, redirect_uri, ...) and paths never carry it.
 */

export const MARKER = 'fzsecret';

/** mulberry32: a small, well-mixed 32-bit PRNG; the same seed gives the same run. */
export class Random {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let x = this.state;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  }
  int(below: number): number {
    return Math.floor(this.next() * below);
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)] as T;
  }
  bytes(length: number): Buffer {
    return Buffer.from(Array.from({ length }, () => this.int(256)));
  }
}

export interface FuzzRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string | string[]>;
  readonly body?: string | Buffer;
}

export const ENDPOINTS = [
  '/oauth2/token',
  '/oauth2/revoke',
  '/oauth2/introspect',
  '/oauth2/authorize',
  '/oauth2/authorize/login',
  '/oauth2/authorize/consent',
  '/oauth2/device_authorization',
  '/device',
  '/.well-known/jwks.json',
  '/.well-known/oauth-authorization-server',
  '/healthz',
  '/readyz',
  '/admin/v1/grants',
  '/admin/v1/grants/AAAAAAAAAAAAAAAAAAAAAA',
  '/admin/v1/keys',
  '/admin/v1/openapi.json',
  '/admin/v1/clients',
  '/admin/v1/clients/web',
  '/admin/v1/clients/web/secret',
  '/admin/v1/resources',
  '/admin/v1/resources/https%3A%2F%2Fapi.example.com%2F',
  '/admin/v1/providers',
  '/admin/v1/providers/corp',
  '/admin/v1/workload-trusts',
  '/admin/v1/workload-trusts/mesh',
  '/admin/v1/users',
  '/admin/v1/users/user-alice',
  '/admin/v1/users/user-alice/password',
] as const;
const UNKNOWN_PATHS = [
  '/',
  '/oauth2',
  '/oauth2/token/',
  '/OAUTH2/TOKEN',
  '/oauth2/authorize/x',
  '/favicon.ico',
  '/%F0%9F%94%91',
  '/oauth2/%zz',
  '//oauth2//token',
  '/.well-known/',
  '/admin/v1',
  '/admin/v1/',
  '/admin/v1/grants/a/b',
  '/admin/v1/%F0%9F%94%91',
  '/admin/v1/clients/web/secret/x',
  '/admin/v1/resources/https://api.example.com/',
];
const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS', 'PROPFIND', 'SEARCH'];

/** Parameters whose values logs may show: never given a secret. */
const PUBLIC: Record<string, readonly string[]> = {
  grant_type: [
    'client_credentials',
    'authorization_code',
    'refresh_token',
    'password',
    'urn:ietf:params:oauth:grant-type:jwt-bearer',
    'urn:ietf:params:oauth:grant-type:device_code',
    'implicit',
  ],
  client_id: ['web', 'single', 'spa', 'service', 'owner', 'tv', 'nobody', 'wéb'],
  scope: ['read', 'read write', 'admin', 'read  read', '"quoted"', 'ré'],
  redirect_uri: [WEB_REDIRECT, 'https://evil.example/cb', 'http://127.0.0.1:8080/cb', 'javascript:alert(1)'],
  response_type: ['code', 'token', 'code token', 'id_token', 'none'],
  response_mode: ['query', 'fragment', 'form_post', 'jwt'],
  code_challenge_method: ['S256', 'plain', 's256'],
  token_type_hint: ['access_token', 'refresh_token', 'id_token'],
  resource: [MCP, API, '/relative', `${API}#f`, 'urn:x', UNREGISTERED],
};
const SECRET_NAMES = [
  'client_secret',
  'code',
  'device_code',
  'user_code',
  'code_verifier',
  'refresh_token',
  'password',
  'username',
  'token',
  'state',
  'nonce',
  'code_challenge',
  'interaction',
  'csrf_token',
  'decision',
];
const ODD_TEXT = ['', ' ', '\u0000', '%00', '💥', 'ü'.repeat(50), '\u202e', '<script>', '\'"', '%zz', '+', '&&', '=='];

export class RequestGenerator {
  /** `adminToken`: an access token for the admin API, so requests get past its guard. */
  constructor(
    private readonly random: Random,
    private readonly adminToken?: string,
  ) {}

  private oddText(): string {
    const r = this.random;
    if (r.chance(0.05)) return 'A'.repeat(r.pick([256, 4096, 20_000]));
    return r.pick(ODD_TEXT) + (r.chance(0.5) ? String(r.int(1000)) : '');
  }

  /** A secret fit for a header (printable ASCII). */
  private headerSecret(): string {
    return `${MARKER}${this.random.int(1e9)}`;
  }

  private secretValue(): string {
    return `${this.headerSecret()}${this.random.chance(0.3) ? this.oddText() : ''}`;
  }

  private parameter(): [string, string] {
    const r = this.random;
    const kind = r.int(10);
    if (kind < 4) {
      const name = r.pick(Object.keys(PUBLIC));
      return [name, r.chance(0.85) ? r.pick(PUBLIC[name] as string[]) : r.chance(0.5) ? '' : this.oddText().replaceAll(MARKER, '')];
    }
    if (kind < 9) return [r.pick(SECRET_NAMES), r.chance(0.9) ? this.secretValue() : ''];
    return [r.chance(0.5) ? `${MARKER}name${r.int(99)}` : this.oddText(), this.secretValue()];
  }

  /** form-urlencoded, sometimes repeated, bare or broken. */
  private encoded(): string {
    const r = this.random;
    const params = Array.from({ length: r.int(8) }, () => this.parameter());
    if (params.length > 0 && r.chance(0.1)) params.push(r.pick(params));
    const parts = params.map(([n, v]) =>
      r.chance(0.05)
        ? encodeURIComponent(v)
        : // eslint-disable-next-line no-control-regex -- the fuzzer strips control characters on purpose
          `${encodeURIComponent(n)}=${r.chance(0.05) ? v.replace(/[&=#\s\u0000-\u001f\u007f-\uffff]/g, '') : encodeURIComponent(v)}`,
    );
    if (r.chance(0.05)) parts.push('%zz=%');
    return parts.join(r.chance(0.05) ? '&&' : '&');
  }

  private authorization(): string | undefined {
    const r = this.random;
    switch (r.int(8)) {
      case 0:
        return basic(r.pick(['web', 'single', 'service', 'owner']), WEB_SECRET);
      case 1:
        return basic(r.pick(['web', 'nobody', 'spa']), this.secretValue());
      case 2:
        return r.pick([
          'Basic',
          'Basic !!!',
          'Basic Og==',
          `Basic ${Buffer.from(`${MARKER}-no-colon`).toString('base64')}`,
          'basic',
          'Digest x',
        ]);
      case 3:
        return `Bearer ${this.headerSecret()}`;
      default:
        return undefined;
    }
  }

  private body(): { contentType?: string; body?: string | Buffer } {
    const r = this.random;
    switch (r.int(12)) {
      case 0:
        return {};
      case 1:
        return {
          contentType: 'application/json',
          body: JSON.stringify(Object.fromEntries(Array.from({ length: 3 }, () => this.parameter()))),
        };
      case 2:
        return {
          contentType: r.pick(['text/plain', 'multipart/form-data; boundary=x', 'application/octet-stream', 'form', '']),
          body: this.encoded(),
        };
      case 3:
        return { contentType: 'application/x-www-form-urlencoded', body: r.bytes(r.int(300)) };
      case 4:
        return { contentType: 'application/x-www-form-urlencoded', body: `password=${this.secretValue()}&x=${'y'.repeat(70 * 1024)}` };
      case 5:
        return { body: this.encoded() };
      default:
        return {
          contentType: r.pick([
            'application/x-www-form-urlencoded',
            'application/x-www-form-urlencoded; charset=UTF-8',
            'APPLICATION/X-WWW-FORM-URLENCODED',
          ]),
          body: this.encoded(),
        };
    }
  }

  /** A request that would succeed, or nearly: it reaches the grants, the pages and the store. */
  private wellFormed(): FuzzRequest {
    const r = this.random;
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const templates: (() => FuzzRequest)[] = [
      () => ({
        method: 'POST',
        path: '/oauth2/token',
        headers: { ...form, authorization: basic('service', WEB_SECRET) },
        body: 'grant_type=client_credentials&scope=read',
      }),
      () => ({
        method: 'POST',
        path: '/oauth2/token',
        headers: { ...form, authorization: basic('owner', WEB_SECRET) },
        body: `grant_type=password&username=alice&password=${this.headerSecret()}`,
      }),
      () => ({
        method: 'POST',
        path: '/oauth2/token',
        headers: { ...form, authorization: basic('web', WEB_SECRET) },
        body: `grant_type=${r.pick(['refresh_token&refresh_token', 'authorization_code&code'])}=${this.headerSecret()}`,
      }),
      () => ({
        method: 'POST',
        path: r.pick(['/oauth2/revoke', '/oauth2/introspect']),
        headers: { ...form, authorization: basic('web', WEB_SECRET) },
        body: `token=${this.headerSecret()}`,
      }),
      () => ({
        method: r.pick(['GET', 'DELETE', 'PATCH']),
        path: `/admin/v1/grants${r.pick(['', '/AAAAAAAAAAAAAAAAAAAAAA', '/abc'])}?${r.pick(['sub', 'client_id', 'limit', 'cursor', 'x'])}=${r.pick(['alice', '0', '501', '-1', 'WzFd', '%zz', ''])}`,
        headers: {
          authorization: `Bearer ${this.adminToken ?? this.headerSecret()}`,
          'content-type': r.pick(['application/json', 'text/plain']),
        },
        body: r.pick(['{}', '{"a":', 'null', '[]', '{"__proto__":{"x":1}}']),
      }),
      () => this.adminEntityRequest(),
      () => ({
        method: 'GET',
        path: `/oauth2/authorize?response_type=code&client_id=web&redirect_uri=${encodeURIComponent(WEB_REDIRECT)}&scope=read&state=${this.headerSecret()}&code_challenge=${MARKER}${'c'.repeat(35)}&code_challenge_method=S256`,
        headers: {},
      }),
    ];
    const base = r.pick(templates)();
    if (!r.chance(0.5)) return base;
    // One mutation: an extra, a repeated or a cut parameter.
    const body = String(base.body ?? '');
    const [name, value] = this.parameter();
    const mutated = r.pick([
      `${body}&${encodeURIComponent(name)}=${encodeURIComponent(value)}`,
      `${body}&${body.split('&')[0]}`,
      body.slice(0, r.int(body.length + 1)),
    ]);
    return base.method === 'GET'
      ? { ...base, path: `${base.path}&${encodeURIComponent(name)}=${encodeURIComponent(value)}` }
      : { ...base, body: mutated };
  }

  /** A change or read of an admin entity, well-formed or nearly; its secrets (passwords, provider secrets) planted. */
  private adminEntityRequest(): FuzzRequest {
    const r = this.random;
    const secret = this.headerSecret();
    const id = `fz${r.int(1e6)}`;
    const [method, path, body]: [string, string, unknown] = r.pick<[string, string, unknown]>([
      [
        'POST',
        '/admin/v1/clients',
        {
          client_id: id,
          grant_types: [r.pick(['client_credentials', 'authorization_code'])],
          redirect_uris: [r.pick(PUBLIC.redirect_uri as string[])],
        },
      ],
      [
        'PATCH',
        `/admin/v1/clients/${r.pick(['web', id])}`,
        { disabled: r.pick([true, 'yes', null]), scope: r.pick(PUBLIC.scope as string[]) },
      ],
      ['POST', `/admin/v1/clients/${r.pick(['web', id])}/secret`, undefined],
      [
        'PUT',
        `/admin/v1/resources/${encodeURIComponent(r.pick(PUBLIC.resource as string[]))}`,
        { resource: r.pick(PUBLIC.resource as string[]), scope: 'read' },
      ],
      [
        'POST',
        '/admin/v1/providers',
        {
          id: 'corp',
          type: r.pick(['github', 'saml']),
          name: 'Corp',
          issuer: 'https://login.example.com',
          client_id: 'ours',
          client_secret: secret,
        },
      ],
      ['PUT', '/admin/v1/providers/corp', { id: 'corp', type: 'github', name: 'Corp', client_id: 'ours', client_secret: secret }],
      [
        'POST',
        '/admin/v1/workload-trusts',
        { id: 'mesh', issuer: r.pick(['spiffe://example.org', 'http://x', '']), rules: r.pick([[], [{ sub: '*' }]]) },
      ],
      ['POST', '/admin/v1/users', { username: id, password: r.pick(['short', secret]), roles: r.pick([['admin'], ['root']]) }],
      ['PUT', `/admin/v1/users/${r.pick(['user-alice', 'fed_x', id])}/password`, { password: secret }],
      [
        'PATCH',
        `/admin/v1/users/${r.pick(['user-alice', 'fed_x', id])}`,
        { disabled: r.pick([true, false, 'no']), claims: r.pick([{}, null]) },
      ],
      ['DELETE', `/admin/v1/${r.pick(['clients', 'users', 'resources', 'providers', 'workload-trusts'])}/${id}`, undefined],
      [
        'GET',
        `/admin/v1/${r.pick(['clients', 'users', 'resources', 'providers', 'workload-trusts'])}?${r.pick(['source', 'q', 'grant_type', 'limit', 'cursor'])}=${r.pick(['file', 'admin', 'federated', 'registration', '0', '%zz', 'WzJd', ''])}`,
        undefined,
      ],
    ]);
    return {
      method,
      path,
      headers: {
        authorization: `Bearer ${this.adminToken ?? this.headerSecret()}`,
        ...(body === undefined
          ? {}
          : { 'content-type': method === 'PATCH' ? 'application/merge-patch+json' : r.pick(['application/json', 'text/plain']) }),
        ...(r.chance(0.2) ? { 'if-match': r.pick(['"client-1"', '*', 'W/"x"', 'nonsense']) } : {}),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    };
  }

  next(): FuzzRequest {
    const r = this.random;
    if (r.chance(0.25)) return this.wellFormed();
    const path = r.chance(0.9) ? r.pick(ENDPOINTS) : r.pick(UNKNOWN_PATHS);
    const method = r.chance(0.8)
      ? path.startsWith('/oauth2/') && path !== '/oauth2/authorize'
        ? 'POST'
        : path.startsWith('/admin/')
          ? r.pick(['GET', 'DELETE', 'POST', 'PATCH'])
          : r.pick(['GET', 'POST'])
      : r.pick(METHODS);
    const query = r.chance(0.5) ? this.encoded() : '';
    const headers: Record<string, string | string[]> = {};
    const authorization = this.authorization();
    if (authorization) headers.authorization = r.chance(0.05) ? [authorization, authorization] : authorization;
    if (r.chance(0.3)) headers.cookie = `__Host-oauth_session=${this.headerSecret()}; other=${this.headerSecret()}`;
    if (r.chance(0.1)) headers['x-request-id'] = r.pick(['abc', 'x'.repeat(100), 'a b', '../']);
    const { contentType, body } = method === 'GET' || method === 'HEAD' ? {} : this.body();
    if (contentType !== undefined) headers['content-type'] = contentType;
    return { method, path: query ? `${path}?${query}` : path, headers, ...(body === undefined ? {} : { body }) };
  }

  /** Bytes no HTTP client would send; each ends the connection after writing. */
  nextRaw(): Buffer {
    const r = this.random;
    const auth = `Authorization: Basic ${Buffer.from(`web:${this.secretValue()}`).toString('base64')}\r\nCookie: s=${this.headerSecret()}`;
    const shapes = [
      () => r.bytes(1 + r.int(200)),
      () =>
        Buffer.from(
          `${r.pick(['BREW', 'G ET', 'get', 'GET\u0000', 'PRI'])} /oauth2/token?code=${this.secretValue()} HTTP/1.1\r\nHost: a\r\n${auth}\r\n\r\n`,
        ),
      () =>
        Buffer.from(
          `POST /oauth2/token HTTP/1.1\r\nHost: a\r\n${auth}\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
        ),
      () => Buffer.from(`POST /oauth2/token HTTP/1.1\r\nHost: a\r\n${auth}\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!`),
      () =>
        Buffer.from(
          `POST /oauth2/token HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n${r.pick(['zz', '-1', 'ffffffffffffffff'])}\r\npassword=${this.secretValue()}\r\n0\r\n\r\n`,
        ),
      () =>
        Buffer.from(
          `GET /healthz HTTP/1.1\r\nHost: a\r\n${r.pick(['Bad Header: x', 'NoColon', ' leading: space', `X: ${'v'.repeat(20_000)}`])}\r\n${auth}\r\n\r\n`,
        ),
      () =>
        Buffer.concat([
          Buffer.from('GET /oauth2/'),
          Buffer.from('ключ💥', 'utf8'),
          Buffer.from(`?state=${this.secretValue()} HTTP/1.1\r\nHost: a\r\n\r\n`),
        ]),
      () => Buffer.from(`CONNECT ${r.pick(['example.com:443', '/oauth2/token', '*'])} HTTP/1.1\r\nHost: a\r\n${auth}\r\n\r\n`),
      () => Buffer.from(`GET http://evil.example/oauth2/token?code=${this.secretValue()} HTTP/1.1\r\nHost: a\r\n\r\n`),
      () => Buffer.from(`GET /healthz HTTP/1.0\r\n\r\n`),
      () =>
        Buffer.from(
          `POST /oauth2/token HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 40\r\n\r\npassword=${MARKER}`,
        ),
      () => Buffer.from(`POST /oauth2/token HTTP/1.1\r\nHost: a\r\n${auth}\r\nContent-Length: 100\r\n\r\npassword=${this.secretValue()}`),
    ];
    return r.pick(shapes)();
  }
}

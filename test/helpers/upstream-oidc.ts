import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { decodeJwt, exportJWK, generateKeyPair, type JWK, type JWTPayload, SignJWT } from 'jose';
import Provider from 'oidc-provider';
import type { Test } from 'tap';
import { freePort } from '../../harness/ports.js';

/**
 * node-oidc-provider as a real upstream OpenID provider, in-process on 127.0.0.1 (http), for
 * the tests of sign-in through upstream identity providers: the accounts a test defines,
 * claims by scope (openid, email, profile, groups), one confidential client for our server
 * (PKCE required, refresh tokens, RP-initiated logout), its own login and consent pages
 * (devInteractions: plain HTML forms a cookie-keeping HTTP client or Chromium can drive),
 * a record of every request it received, and stop/start for "the provider is down".
 *
 * Its pages: the login page is a form with inputs `login` (an account's `sub`) and `password`
 * (anything) and a "Sign-in" button; the consent page a "Continue" button; both a
 * "[ Cancel ]" link (the sign-in ends with error=access_denied); the sign-out confirmation a
 * "Yes, sign me out" button. test/helpers/upstream-browser.ts drives them over HTTP.
 */

/** An account at the upstream: the login typed on its login page is the `sub` (any password). */
export interface UpstreamAccount {
  readonly sub: string;
  readonly email?: string;
  readonly email_verified?: boolean;
  readonly name?: string;
  readonly preferred_username?: string;
  readonly picture?: string;
  readonly groups?: readonly string[];
}

export interface UpstreamOidcOptions {
  readonly accounts: readonly UpstreamAccount[];
  /** Our redirect URIs registered at the upstream: `${ISSUER}/oauth2/upstream/{id}/callback`. */
  readonly redirectUris: readonly string[];
  /** Where the upstream may send the browser after its sign-out: `${ISSUER}/oauth2/upstream/{id}/signed-out`. */
  readonly postLogoutRedirectUris?: readonly string[];
  readonly clientId?: string;
  readonly clientSecret?: string;
  /**
   * The client authentication methods the upstream supports (its metadata's
   * token_endpoint_auth_methods_supported); the client is registered with the first.
   * Default: client_secret_basic, client_secret_post.
   */
  readonly authMethods?: readonly ('client_secret_basic' | 'client_secret_post')[];
  /** Whether the ID token carries the scopes' claims (default true); false: only sub, so userinfo is needed. */
  readonly claimsInIdToken?: boolean;
  /** Seconds an upstream access token lives (default 3600). */
  readonly accessTokenTtl?: number;
}

/** A request the upstream received: its method, path, query, and how the client authenticated (token endpoint). */
export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly query: URLSearchParams;
  /** The Authorization header's scheme (Basic, Bearer), if any. */
  readonly authorizationScheme: string | undefined;
}

/** The token endpoint's answer as the upstream sent it (to find its tokens where they must not be). */
export interface IssuedTokens {
  readonly access_token: string;
  readonly refresh_token?: string;
  readonly id_token?: string;
}

export interface UpstreamOidc {
  /** `http://127.0.0.1:{port}`: the issuer, exactly as its discovery document says it. */
  readonly issuer: string;
  readonly port: number;
  readonly clientId: string;
  readonly clientSecret: string;
  /** Every request received since start (or `clear()`), in order. */
  readonly requests: RecordedRequest[];
  /** Every token response the upstream sent (code and refresh), in order. */
  readonly issued: IssuedTokens[];
  /** The authorization requests received (GET /auth, not its resumptions): their query parameters. */
  authorizationRequests(): URLSearchParams[];
  /** The requests to `path` (`/token`, `/me`, `/.well-known/openid-configuration`, `/jwks`, `/session/end`, …). */
  requestsTo(path: string): RecordedRequest[];
  clear(): void;
  /**
   * Rewrites the claims of the ID tokens the token endpoint sends from now on (re-signed with
   * the upstream's own key): to make its `iss`, `aud` or `nonce` wrong. Undefined: as issued.
   */
  tamperIdToken: ((claims: JWTPayload) => JWTPayload) | undefined;
  /** Rewrites the userinfo answers from now on (to make their `sub` another user's). Undefined: as answered. */
  tamperUserinfo: ((claims: Record<string, unknown>) => Record<string, unknown>) | undefined;
  /** The path of its end_session_endpoint (RP-Initiated Logout): `/session/end`. */
  readonly endSessionPath: string;
  /** The entry of IDENTITY_PROVIDERS_FILE for this upstream under `id` (merged with `extra`). */
  providerEntry(id: string, extra?: Record<string, unknown>): Record<string, unknown>;
  /** Closes the listener and every open connection: the provider is down. */
  stop(): Promise<void>;
  /** Listens again on the same port, with the same accounts, clients and grants. */
  start(): Promise<void>;
}

export const UPSTREAM_CLIENT_ID = 'our-authorization-server';
export const UPSTREAM_CLIENT_SECRET = 'upstream-client-secret-0123456789abcdefghijklmnop';

/** The claims each scope releases (OpenID Connect Core §5.4, and `groups`). */
const CLAIMS_BY_SCOPE = {
  openid: ['sub'],
  email: ['email', 'email_verified'],
  profile: ['name', 'preferred_username', 'picture'],
  groups: ['groups'],
};

/** The parts of the provider (a Koa application) this helper uses beyond the bench's declarations. */
interface KoaLikeContext {
  readonly method: string;
  readonly path: string;
  readonly querystring: string;
  get(header: string): string;
  body: unknown;
}
interface KoaLikeProvider {
  callback(): (req: IncomingMessage, res: ServerResponse) => void;
  use(middleware: (ctx: KoaLikeContext, next: () => Promise<void>) => Promise<void>): void;
}

type PrivateKey = Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];

let signingKey: Promise<{ privateKey: PrivateKey; jwk: JWK }> | undefined;

/** The upstream's RS256 key (RS256 is every OpenID provider's default), made once per test process. */
function upstreamKey(): Promise<{ privateKey: PrivateKey; jwk: JWK }> {
  signingKey ??= (async () => {
    const { privateKey } = await generateKeyPair('RS256', { extractable: true });
    const jwk = { ...(await exportJWK(privateKey)), kid: 'upstream-rs256', alg: 'RS256', use: 'sig' };
    return { privateKey, jwk };
  })();
  return signingKey;
}

/**
 * A JWT signed with the upstream's own key (the one its JWKS publishes, kid "upstream-rs256"),
 * as the provider would sign an Identity Assertion JWT Authorization Grant (ID-JAG): the
 * header defaults to `typ: oauth-id-jag+jwt`; `header` overrides it (`typ: undefined` drops it).
 */
export async function signedByUpstream(claims: JWTPayload, header: Record<string, unknown> = {}): Promise<string> {
  const { privateKey } = await upstreamKey();
  const protectedHeader = Object.fromEntries(
    Object.entries({ alg: 'RS256', kid: 'upstream-rs256', typ: 'oauth-id-jag+jwt', ...header }).filter(([, v]) => v !== undefined),
  ) as { alg: string };
  return new SignJWT(claims).setProtectedHeader(protectedHeader).sign(privateKey);
}

/** Like signedByUpstream, but the header exactly as given, whatever jose would refuse to sign (an unknown `crit`). */
export async function rawSignedByUpstream(header: Record<string, unknown>, claims: JWTPayload): Promise<string> {
  const { privateKey } = await upstreamKey();
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const input = `${part(header)}.${part(claims)}`;
  const signature = await crypto.subtle.sign(
    'RSASSA-PKCS1-v1_5',
    privateKey as Parameters<typeof crypto.subtle.sign>[1],
    Buffer.from(input),
  );
  return `${input}.${Buffer.from(signature).toString('base64url')}`;
}

function accountClaims(account: UpstreamAccount): Record<string, unknown> {
  return Object.fromEntries(Object.entries(account).filter(([, value]) => value !== undefined));
}

export async function startUpstreamOidc(t: Test, options: UpstreamOidcOptions): Promise<UpstreamOidc> {
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const { privateKey, jwk } = await upstreamKey();
  const accounts = new Map(options.accounts.map((account) => [account.sub, account]));
  const clientId = options.clientId ?? UPSTREAM_CLIENT_ID;
  const clientSecret = options.clientSecret ?? UPSTREAM_CLIENT_SECRET;
  const authMethods = options.authMethods ?? ['client_secret_basic', 'client_secret_post'];
  const provider = new Provider(issuer, {
    jwks: { keys: [jwk] },
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        redirect_uris: [...options.redirectUris],
        post_logout_redirect_uris: [...(options.postLogoutRedirectUris ?? [])],
        token_endpoint_auth_method: authMethods[0],
      },
    ],
    clientAuthMethods: [...authMethods],
    claims: CLAIMS_BY_SCOPE,
    scopes: ['openid', 'offline_access', 'email', 'profile', 'groups'],
    conformIdTokenClaims: options.claimsInIdToken === false,
    findAccount: (_ctx: unknown, id: string) => {
      const account = accounts.get(id);
      return account && { accountId: id, claims: async () => accountClaims(account) };
    },
    features: {
      devInteractions: { enabled: true },
      rpInitiatedLogout: {
        enabled: true,
        logoutSource: async (ctx: KoaLikeContext, form: string) => {
          ctx.body = `<!DOCTYPE html><html><head><title>Sign out</title></head><body><h1>Sign out of the upstream?</h1>${form.replace('</form>', '<button type="submit" name="logout" value="yes">Yes, sign me out</button></form>')}</body></html>`;
        },
        postLogoutSuccessSource: async (ctx: KoaLikeContext) => {
          ctx.body = '<!DOCTYPE html><html><head><title>Signed out</title></head><body><h1>Signed out</h1></body></html>';
        },
      },
    },
    pkce: { required: () => true },
    // A refresh token with every code (not only with offline_access): what keep_tokens keeps.
    issueRefreshToken: async (_ctx: unknown, client: { grantTypeAllowed(type: string): boolean }) =>
      client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: true,
    ttl: {
      AccessToken: options.accessTokenTtl ?? 3600,
      IdToken: 3600,
      AuthorizationCode: 600,
      RefreshToken: 86_400,
      Grant: 86_400,
      Interaction: 3600,
      Session: 86_400,
    },
    cookies: { keys: ['upstream-cookie-key-0123456789abcdef'] },
    renderError: async (ctx: KoaLikeContext, out: Record<string, string>) => {
      ctx.body = `<!DOCTYPE html><html><head><title>Error</title></head><body><h1>${out.error ?? 'error'}</h1></body></html>`;
    },
  }) as unknown as KoaLikeProvider;

  const upstream: UpstreamOidc = {
    issuer,
    port,
    clientId,
    clientSecret,
    requests: [],
    issued: [],
    tamperIdToken: undefined,
    tamperUserinfo: undefined,
    endSessionPath: '/session/end',
    authorizationRequests: () => upstream.requests.filter((r) => r.method === 'GET' && r.path === '/auth').map((r) => r.query),
    requestsTo: (path) => upstream.requests.filter((r) => r.path === path),
    clear: () => {
      upstream.requests.length = 0;
      upstream.issued.length = 0;
    },
    providerEntry: (id, extra = {}) => ({
      id,
      type: 'oidc',
      name: `Upstream ${id}`,
      issuer,
      client_id: clientId,
      client_secret: clientSecret,
      ...extra,
    }),
    stop: async () => {
      if (!server) return;
      const closing = server;
      server = undefined;
      closing.close();
      for (const socket of sockets) socket.destroy();
      await once(closing, 'close');
    },
    start: async () => {
      if (server) return;
      server = listen();
      await once(server, 'listening');
    },
  };

  provider.use(async (ctx, next) => {
    const authorization = ctx.get('authorization');
    upstream.requests.push({
      method: ctx.method,
      path: ctx.path,
      query: new URLSearchParams(ctx.querystring),
      authorizationScheme: authorization === '' ? undefined : authorization.split(' ')[0],
    });
    await next();
    if (ctx.path === '/me' && upstream.tamperUserinfo && typeof ctx.body === 'object' && ctx.body !== null) {
      ctx.body = upstream.tamperUserinfo(ctx.body as Record<string, unknown>);
      return;
    }
    if (ctx.path !== '/token' || typeof ctx.body !== 'object' || ctx.body === null) return;
    const body = ctx.body as Record<string, unknown>;
    if (typeof body.access_token !== 'string') return;
    const tamper = upstream.tamperIdToken;
    if (tamper && typeof body.id_token === 'string') {
      body.id_token = await new SignJWT(tamper(decodeJwt(body.id_token)))
        .setProtectedHeader({ alg: 'RS256', kid: jwk.kid as string, typ: 'JWT' })
        .sign(privateKey);
    }
    upstream.issued.push({
      access_token: body.access_token,
      ...(typeof body.refresh_token === 'string' ? { refresh_token: body.refresh_token } : {}),
      ...(typeof body.id_token === 'string' ? { id_token: body.id_token } : {}),
    });
  });

  const sockets = new Set<Socket>();
  const handler = provider.callback();
  const listen = (): Server => {
    const created = createServer(handler);
    created.on('connection', (socket: Socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    created.listen(port, '127.0.0.1');
    return created;
  };
  let server: Server | undefined = listen();
  await once(server, 'listening');
  t.teardown(() => upstream.stop());
  return upstream;
}

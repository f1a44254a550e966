import type { Test } from 'tap';
import { UserRegistry } from '../../src/users/registry.js';
import { WEB_REDIRECT, WEB_SECRET } from './authorize-fixtures.js';
import { authorizeUrl, pkcePair } from './browser-flow.js';
import { OIDC_CLIENTS, oidcUsers, RESOURCE } from './oidc-fixtures.js';
import { basic, buildTestServer, FORM_HEADERS, ISSUER, type TestServer } from './server.js';
import type { TestStore } from './stores.js';
import { type BrowserResponse, FlowBrowser, pageForms, visitUpstream, type UpstreamVisit } from './upstream-browser.js';
import { startUpstreamOidc, type UpstreamAccount, type UpstreamOidc, type UpstreamOidcOptions } from './upstream-oidc.js';

/** Our server with node-oidc-provider as its upstream identity provider, and the flows through both. */

export const ACCOUNTS = {
  ada: {
    sub: 'ada-123',
    email: 'ada@example.com',
    email_verified: true,
    name: 'Ada Lovelace',
    preferred_username: 'ada',
    picture: 'https://pictures.example.com/ada.png',
    groups: ['mcp-users'],
  },
  bob: { sub: 'bob-456', email: 'bob@example.com', email_verified: true, name: 'Bob Builder', groups: ['mcp-users', 'staff'] },
  eve: { sub: 'eve-789', email: 'eve@elsewhere.org', email_verified: true, name: 'Eve', groups: ['mcp-users'] },
  unverified: { sub: 'uma-000', email: 'uma@example.com', email_verified: false, name: 'Uma', groups: ['mcp-users'] },
  guest: { sub: 'gus-111', email: 'gus@example.com', email_verified: true, name: 'Gus', groups: ['guests'] },
} satisfies Record<string, UpstreamAccount>;

/** The provider ids the upstream knows our redirect URIs for. */
export const PROVIDER_IDS = ['corp', 'other'] as const;

export const CLIENT_STATE = 'client-state-Zq9';
export const CLIENT_NONCE = 'client-nonce-Xy7';
export const CLIENT_SCOPE = 'openid email profile read';

export const callbackUrl = (id: string) => `${ISSUER}/oauth2/upstream/${id}/callback`;
export const signedOutUrl = (id: string) => `${ISSUER}/oauth2/upstream/${id}/signed-out`;

export interface Federation {
  readonly server: TestServer;
  readonly upstream: UpstreamOidc;
  /** A new browser (its own cookies) on our server and the upstream. */
  browser(headers?: Record<string, string>): FlowBrowser;
}

export interface FederationOptions {
  readonly store: TestStore;
  /** IDENTITY_PROVIDERS_FILE entries; default: the upstream as "corp", named "Corporate SSO". */
  readonly providers?: (upstream: UpstreamOidc) => unknown[];
  /** Whether USERS_FILE has users (default true). */
  readonly localUsers?: boolean;
  readonly upstream?: Partial<UpstreamOidcOptions>;
  /** An upstream already running (a second instance of our server). */
  readonly runningUpstream?: UpstreamOidc;
  readonly env?: Record<string, string>;
  readonly logger?: unknown;
  readonly keysDir?: string;
  /** More CLIENTS_FILE entries, beside OIDC_CLIENTS. */
  readonly clients?: readonly unknown[];
  /** RESOURCES_FILE entries; default: RESOURCE with mcp:tools. */
  readonly resources?: { resource: string; scope: string }[];
}

export async function federation(t: Test, options: FederationOptions): Promise<Federation> {
  const upstream =
    options.runningUpstream ??
    (await startUpstreamOidc(t, {
      accounts: Object.values(ACCOUNTS),
      redirectUris: PROVIDER_IDS.map(callbackUrl),
      postLogoutRedirectUris: PROVIDER_IDS.map(signedOutUrl),
      ...options.upstream,
    }));
  const server = await buildTestServer(t, {
    clients: [...OIDC_CLIENTS, ...(options.clients ?? [])],
    users: options.localUsers === false ? UserRegistry.fromEntries([]) : oidcUsers(),
    resources: options.resources ?? [{ resource: RESOURCE, scope: 'mcp:tools' }],
    signingAlgorithms: ['ES256', 'RS256'],
    providers: options.providers?.(upstream) ?? [upstream.providerEntry('corp', { name: 'Corporate SSO' })],
    store: options.store,
    ...(options.env ? { env: options.env } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.keysDir ? { keysDir: options.keysDir } : {}),
  });
  return {
    server,
    upstream,
    browser: (headers = {}) => new FlowBrowser({ ours: { origin: ISSUER, app: server.app }, followed: [upstream.issuer], headers }),
  };
}

/** An authorization request of client `web` for a code (PKCE S256), with `extra` parameters. */
export function codeRequest(extra: Record<string, string> = {}): { params: Record<string, string>; verifier: string } {
  const { verifier, challenge } = pkcePair();
  const params = {
    response_type: 'code',
    client_id: 'web',
    redirect_uri: WEB_REDIRECT,
    scope: CLIENT_SCOPE,
    state: CLIENT_STATE,
    nonce: CLIENT_NONCE,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    ...extra,
  };
  return { params, verifier };
}

/** The parameters of a redirect to the client. */
export function clientAnswer(location: URL): Record<string, string> {
  return Object.fromEntries(location.searchParams);
}

/** The error a client gets at its redirect URI, with its state and our issuer (RFC 9207). */
export function errorAtClient(error: string, description: string): Record<string, string> {
  return { error, error_description: description, state: CLIENT_STATE, iss: ISSUER };
}

/** The heading of one of our pages. */
export function pageTitle(page: BrowserResponse): string | undefined {
  return /<h1>([^<]*)<\/h1>/.exec(page.body)?.[1];
}

/** A sign-in of `login` started with idp=corp in a new browser, back from the upstream: the callback, not yet followed. */
export async function signInAtUpstream(f: Federation, login: string): Promise<{ browser: FlowBrowser; callback: URL }> {
  const browser = f.browser();
  const toUpstream = await browser.get(authorizeUrl(codeRequest({ idp: 'corp' }).params));
  const back = await visitUpstream(browser, toUpstream, f.upstream.issuer, { login });
  if (back.location === undefined) throw new Error(`no callback: ${back.status}`);
  return { browser, callback: back.location };
}

/** Presses "Continue with …" for `provider` on our login page. */
export function continueWith(browser: FlowBrowser, loginPage: BrowserResponse, provider: string): Promise<BrowserResponse> {
  const form = pageForms(loginPage).find((f) => f.action.pathname === '/oauth2/authorize/upstream');
  if (!form) throw new Error(`no provider buttons on the page (${loginPage.status})`);
  return browser.submit(form, { provider });
}

/** From our redirect to the upstream: the visit there, its callback to us, and on to the client (our consent allowed). */
export async function completeAtUpstream(
  f: Federation,
  browser: FlowBrowser,
  toUpstream: BrowserResponse,
  visit: UpstreamVisit,
): Promise<BrowserResponse> {
  const back = await visitUpstream(browser, toUpstream, f.upstream.issuer, visit);
  const page = await browser.follow(back);
  if (page.status !== 200 || !page.body.includes('name="decision"')) return page;
  const [consent] = pageForms(page);
  return browser.submit(consent as NonNullable<typeof consent>, { decision: 'allow' });
}

export interface FederatedCode {
  readonly browser: FlowBrowser;
  /** Where the client was sent (its redirect URI with the code, or an error). */
  readonly location: URL;
  readonly verifier: string;
}

/** A whole sign-in through the upstream for a code: `idp` names the provider (default corp). */
export async function federatedCode(
  f: Federation,
  visit: UpstreamVisit,
  options: { extra?: Record<string, string>; resources?: readonly string[]; browser?: FlowBrowser } = {},
): Promise<FederatedCode> {
  const browser = options.browser ?? f.browser();
  const { params, verifier } = codeRequest({ idp: 'corp', ...options.extra });
  const start = await browser.get(authorizeUrl(params, options.resources ?? []));
  const end = await completeAtUpstream(f, browser, start, visit);
  if (end.location === undefined || !end.location.href.startsWith(WEB_REDIRECT)) throw new Error(`not back at the client: ${end.status}`);
  return { browser, location: end.location, verifier };
}

/** The token response for a code of client `web`. */
export async function redeem(f: Federation, code: string, verifier: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await f.server.app.inject({
    method: 'POST',
    url: '/oauth2/token',
    headers: { ...FORM_HEADERS, authorization: basic('web', WEB_SECRET) },
    payload: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: WEB_REDIRECT,
      code_verifier: verifier,
    }).toString(),
  });
  return { status: res.statusCode, body: res.json() as Record<string, unknown> };
}

/** A whole sign-in and the code redeemed: the token response. */
export async function federatedTokens(f: Federation, visit: UpstreamVisit, options: Parameters<typeof federatedCode>[2] = {}) {
  const flow = await federatedCode(f, visit, options);
  const code = flow.location.searchParams.get('code');
  if (code === null) throw new Error(`no code: ${flow.location.href}`);
  const { status, body } = await redeem(f, code, flow.verifier);
  if (status !== 200) throw new Error(`token endpoint: ${status} ${JSON.stringify(body)}`);
  return { ...flow, code, tokens: body as Record<string, string> };
}

import { once } from 'node:events';
import { createServer } from 'node:http';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { Browser, Page } from 'playwright-core';
import type { Test } from 'tap';
import { PROCESS_ALICE } from './registry-files.js';

/**
 * The MCP SDK client's side of the e2e tests: an OAuthClientProvider implemented as an
 * MCP client application would (in-memory storage), whose `redirectToAuthorization`
 * drives headless Chromium through our login and consent pages; the code lands on a local
 * callback server. Every request the SDK sends is recorded, so tests can say what it did.
 */

/** A loopback redirect URI page (RFC 8252 §7.3: the port is picked at run time) that records what arrives. */
export interface CallbackServer {
  readonly redirectUri: string;
  /** The query of the next unconsumed arrival; rejects after `timeoutMs` (10 s) without one. */
  next(timeoutMs?: number): Promise<URLSearchParams>;
}

export async function startCallbackServer(t: Test): Promise<CallbackServer> {
  const arrivals: URLSearchParams[] = [];
  const waiting: ((params: URLSearchParams) => void)[] = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname === '/callback') {
      const resolve = waiting.shift();
      if (resolve) resolve(url.searchParams);
      else arrivals.push(url.searchParams);
    }
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>MCP client</title><p>Back at the MCP client</p>');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => server.close());
  return {
    redirectUri: `http://127.0.0.1:${(server.address() as { port: number }).port}/callback`,
    next: (timeoutMs = 10_000) => {
      const arrived = arrivals.shift();
      if (arrived) return Promise.resolve(arrived);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiting.splice(waiting.indexOf(take), 1);
          reject(new Error(`nothing arrived at the redirect URI within ${timeoutMs} ms`));
        }, timeoutMs);
        const take = (params: URLSearchParams) => {
          clearTimeout(timer);
          resolve(params);
        };
        waiting.push(take);
      });
    },
  };
}

/** One HTTP request the SDK sent (method, URL, form or JSON body) and the status it got. */
export interface RecordedRequest {
  readonly method: string;
  readonly url: string;
  readonly body: string;
  /** The scheme of its Authorization header (`Basic`, `Bearer`), never the credentials. */
  readonly authorization: string | undefined;
  readonly status: number;
}

export interface BrowserProviderOptions {
  readonly browser: Browser;
  readonly callback: CallbackServer;
  readonly clientMetadata: OAuthClientMetadata;
  /** An https URL the client uses as its client_id (Client ID Metadata Document). */
  readonly clientMetadataUrl?: string;
  /** Credentials of a client registered beforehand (CLIENTS_FILE): no registration at all. */
  readonly registered?: OAuthClientInformationMixed;
  /** What the person does on our pages; by default alice signs in and allows. */
  readonly decide?: 'allow' | 'deny';
  /**
   * How the person signs in, from the page the authorization URL led to until our consent
   * page; by default alice's password on our login page.
   */
  readonly signIn?: (page: Page) => Promise<void>;
}

export class BrowserOAuthProvider implements OAuthClientProvider {
  readonly clientMetadataUrl?: string;
  /** The authorization URLs the SDK sent the browser to. */
  readonly authorizationUrls: URL[] = [];
  /** The text of the consent pages shown. */
  readonly consentTexts: string[] = [];
  /** Pages of ours where the browser stopped instead of going back to the client (an unknown client). */
  readonly errorPages: { status: number; text: string }[] = [];
  private client: OAuthClientInformationMixed | undefined;
  private saved: OAuthTokens | undefined;
  private verifier = '';

  constructor(private readonly options: BrowserProviderOptions) {
    if (options.clientMetadataUrl !== undefined) this.clientMetadataUrl = options.clientMetadataUrl;
    this.client = options.registered;
  }

  get redirectUrl(): string {
    return this.options.callback.redirectUri;
  }

  get clientMetadata(): OAuthClientMetadata {
    return this.options.clientMetadata;
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.client;
  }

  saveClientInformation(info: OAuthClientInformationMixed): void {
    this.client = info;
  }

  tokens(): OAuthTokens | undefined {
    return this.saved;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.saved = tokens;
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    return this.verifier;
  }

  async redirectToAuthorization(url: URL): Promise<void> {
    this.authorizationUrls.push(url);
    const context = await this.options.browser.newContext();
    try {
      const page = await context.newPage();
      const response = await page.goto(url.href);
      if (page.url().startsWith(this.redirectUrl)) return; // an error went straight back to the client
      if (this.options.signIn) await this.options.signIn(page);
      else {
        if ((await page.title()) !== 'Sign in') {
          this.errorPages.push({ status: response?.status() ?? 0, text: (await page.textContent('main')) ?? '' });
          return;
        }
        await page.getByLabel('Username').fill(PROCESS_ALICE.username);
        await page.getByLabel('Password', { exact: true }).fill(PROCESS_ALICE.password);
        await page.getByRole('button', { name: 'Sign in' }).click();
      }
      await page.waitForSelector('text=Allow access?');
      this.consentTexts.push((await page.textContent('main')) ?? '');
      await page.getByRole('button', { name: this.options.decide === 'deny' ? 'Deny' : 'Allow' }).click();
      await page.waitForURL(`${this.redirectUrl}?**`);
    } finally {
      await context.close();
    }
  }
}

/** `fetch` that records every request and its status (bodies of POSTs as sent). */
export function recordingFetch(log: RecordedRequest[]): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    const body = request.method === 'POST' ? await request.clone().text() : '';
    const res = await fetch(request);
    const authorization = request.headers.get('authorization')?.split(' ')[0];
    log.push({ method: request.method, url: request.url, body, authorization, status: res.status });
    return res;
  };
}

/** The first connection of an MCP client application: a 401, then the browser at our authorization endpoint. */
export interface Authorization {
  readonly transport: StreamableHTTPClientTransport;
  /** Every request the SDK sent, to the MCP server and to us (later connections add theirs). */
  readonly requests: RecordedRequest[];
  /** What arrived at the redirect URI (a code, or an error); undefined when the browser stopped at an error page of ours. */
  readonly arrived: URLSearchParams | undefined;
  /** A transport for a further connection with the same provider. */
  readonly newTransport: () => StreamableHTTPClientTransport;
}

export async function authorizeMcpClient(
  serverUrl: string,
  provider: BrowserOAuthProvider,
  callback: CallbackServer,
): Promise<Authorization> {
  const requests: RecordedRequest[] = [];
  const newTransport = () =>
    new StreamableHTTPClientTransport(new URL(serverUrl), { authProvider: provider, fetch: recordingFetch(requests) });
  const transport = newTransport();
  const errorPagesBefore = provider.errorPages.length;
  const refused = await new Client({ name: 'e2e-mcp-client', version: '1.0.0' }).connect(transport).then(
    () => new Error('the MCP server accepted a connection without a token'),
    (err: unknown) => err,
  );
  if (!(refused instanceof UnauthorizedError)) throw refused;
  const stopped = provider.errorPages.length > errorPagesBefore;
  return { transport, requests, arrived: stopped ? undefined : await callback.next(), newTransport };
}

/**
 * What an MCP client application does: connect, get a 401, authorize in the browser
 * (`redirectToAuthorization`), take the code from the redirect URI, `finishAuth(code)`,
 * and connect again with the tokens. Rejects with what the SDK threw if a step fails.
 */
export async function connectWithOAuth(
  t: Test,
  serverUrl: string,
  provider: BrowserOAuthProvider,
  callback: CallbackServer,
): Promise<Authorization & { readonly client: Client }> {
  const authorization = await authorizeMcpClient(serverUrl, provider, callback);
  const code = authorization.arrived?.get('code');
  if (!code)
    throw new Error(`no code at the redirect URI: ${authorization.arrived?.toString() ?? JSON.stringify(provider.errorPages.at(-1))}`);
  await authorization.transport.finishAuth(code);
  const client = new Client({ name: 'e2e-mcp-client', version: '1.0.0' });
  await client.connect(authorization.newTransport());
  t.teardown(() => client.close());
  return { ...authorization, client };
}

import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { Test } from 'tap';
import { hashClientSecret } from '../../src/clients/secret.js';
import { ALICE, AUTHORIZE_CLIENTS, testUsers, WEB_SECRET } from './authorize-fixtures.js';
import { formAction, formFields, type InjectBrowser } from './browser-flow.js';
import { API, MCP, RESOURCES } from './resource-fixtures.js';
import { buildTestServer, type TestServerOptions } from './server.js';
import { memoryStore, type OpenStore } from './stores.js';
import { TokenClient } from './token-client.js';

export const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
export const KIOSK_SECRET = 'kiosk-secret-0123456789abcdefghijklmnopqrstuvwxyz';

/**
 * The clients of the device flow tests: `tv`, public, with refresh tokens, registered without
 * scope (its resources' scopes and the identity scopes); `kiosk`, confidential, the device
 * grant alone, limited to `read`; and the authorization endpoint's clients (`web` has no device grant).
 */
export const DEVICE_CLIENTS = [
  ...AUTHORIZE_CLIENTS,
  { client_id: 'tv', client_name: 'Living-room TV', token_endpoint_auth_method: 'none', grant_types: [DEVICE_GRANT, 'refresh_token'] },
  { client_id: 'kiosk', client_secret_hash: hashClientSecret(KIOSK_SECRET), grant_types: [DEVICE_GRANT], scope: 'read' },
];

/** What a device authorization response carries (RFC 8628 §3.2). */
export interface DeviceAuthorization {
  readonly device_code: string;
  readonly user_code: string;
  readonly verification_uri: string;
  readonly verification_uri_complete: string;
  readonly expires_in: number;
  readonly interval: number;
}

export const tv = (app: FastifyInstance, address?: string) => new TokenClient(app, 'tv', null, address);
export const kiosk = (app: FastifyInstance) => new TokenClient(app, 'kiosk', KIOSK_SECRET);

/** A server for the device flow on `open`'s store: alice and bob, the resources MCP and API, ES256 and RS256 keys (ID tokens). */
export async function deviceServer(t: Test, open: OpenStore = memoryStore, options: TestServerOptions = {}) {
  return buildTestServer(t, {
    clients: DEVICE_CLIENTS,
    users: testUsers(),
    resources: RESOURCES,
    signingAlgorithms: ['ES256', 'RS256'],
    ...options,
    store: await open(t),
  });
}

/** §3.1: a device authorization of `client` (scope and resources as given). */
export async function startDevice(
  client: TokenClient,
  params: Record<string, string> = { scope: 'openid read' },
  resources: readonly string[] = [API],
): Promise<DeviceAuthorization> {
  const res = await client.post('/oauth2/device_authorization', params, resources);
  if (res.statusCode !== 200) throw new Error(`device authorization refused: ${res.body}`);
  return res.json();
}

/** §3.4: one poll of the token endpoint. */
export function poll(client: TokenClient, deviceCode: string, extra: Record<string, string> = {}): Promise<LightMyRequestResponse> {
  return client.token({ grant_type: DEVICE_GRANT, device_code: deviceCode, ...extra });
}

/** The path and query of an absolute URL of the server, for inject(). */
export const pathOf = (url: string) => `${new URL(url).pathname}${new URL(url).search}`;

/**
 * The user's side through the pages (§3.3): the code page, the code posted, the login form
 * (when the browser has no session), and the consent form's decision. Returns the last page.
 */
export async function decideInBrowser(
  browser: InjectBrowser,
  userCode: string,
  decision: 'allow' | 'deny' = 'allow',
  credentials: { username: string; password: string } = ALICE,
): Promise<LightMyRequestResponse> {
  const page = await browser.get('/device');
  let next = await browser.post(formAction(page.body), { ...formFields(page.body), user_code: userCode });
  if (formAction(next.body) === '/oauth2/authorize/login') {
    const signedIn = await browser.post(formAction(next.body), { ...formFields(next.body), ...credentials });
    next = await browser.get(signedIn.headers.location as string);
  }
  if (formAction(next.body) !== '/oauth2/authorize/consent') return next;
  return browser.post(formAction(next.body), { ...formFields(next.body), decision });
}

export { ALICE, MCP, API, WEB_SECRET };

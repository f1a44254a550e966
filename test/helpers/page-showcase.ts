import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { buildServer } from '../../src/app.js';
import { ClientRegistry } from '../../src/clients/registry.js';
import { loadConfig } from '../../src/config/index.js';
import { Keystore } from '../../src/keys/keystore.js';
import { rotateKeys } from '../../src/keys/rotation.js';
import { ResourceRegistry } from '../../src/resources/registry.js';
import { Signer } from '../../src/session/signer.js';
import { MemoryStore } from '../../src/store/memory.js';
import { UserRegistry } from '../../src/users/registry.js';
import { cheapPasswordHash } from './passwords.js';
import { SHOWCASE_ENTRIES_KEY, SHOWCASE_TRUSTS, seedIdentityEntries } from './console-identity-showcase.js';
import { EntrySync } from '../../src/entries/sync.js';
import { adminServicesFor } from '../../src/services/entries.js';
import { WorkloadTrustRegistry } from '../../src/workloads/trusts.js';
import { PHOTOS_API, PHOTOS_RESOURCE } from './console.js';
import { freePort } from '../../harness/ports.js';
import {
  CONSOLE_SHOWCASE_CLIENTS,
  CONSOLE_SHOWCASE_USERS,
  type ConsoleShowcase,
  connectPhotos,
  consoleShowcase,
  replayTheLastHour,
} from './console-showcase.js';

/**
 * The pages as an operator would brand them, served on 127.0.0.1 with a logo server
 * beside them: what `npm run docs:screenshots` photographs and what the accessibility
 * test (test/e2e/pages.accessibility.test.ts) checks, so both see the same pages.
 */

const BRAND_LOGO = `<svg xmlns="http://www.w3.org/2000/svg" width="36" height="36" viewBox="0 0 36 36"><rect width="36" height="36" rx="9" fill="#6d28d9"/><path d="M10 25 18 9l8 16h-5l-3-6.5-3 6.5z" fill="#fff"/></svg>`;
const CLIENT_LOGO = `<svg xmlns="http://www.w3.org/2000/svg" width="48" height="48" viewBox="0 0 48 48"><rect width="48" height="48" rx="12" fill="#0e7490"/><circle cx="24" cy="22" r="9" fill="none" stroke="#fff" stroke-width="4"/><rect x="12" y="34" width="24" height="4" rx="2" fill="#fff"/></svg>`;

export const SHOWCASE_USER = { username: 'alice', password: 'wonderland-2026', sub: 'alice@example.com' } as const;
const REDIRECT_URI = 'https://photos.example.com/callback';

export interface Showcase extends ConsoleShowcase {
  readonly issuer: string;
  readonly logoOrigin: string;
  /** The login page of an authorization request by the showcase client. */
  openLogin(page: Page): Promise<void>;
  /** Signs in on the login page, leaving the browser on the consent page. */
  openConsent(page: Page): Promise<void>;
  /** The consent page of a step-up: the user approved reading photos before; the client now asks to upload too. */
  openStepUpConsent(page: Page): Promise<void>;
  /** An authorization request with a redirect URI the client never registered: the error page. */
  openError(page: Page): Promise<void>;
  /** The device flow (RFC 8628): /device with a device's code filled in (verification_uri_complete). */
  openDeviceCode(page: Page): Promise<void>;
  /** The code confirmed and the user signed in: the consent page of a device, with its warning. */
  openDeviceConsent(page: Page): Promise<void>;
  /** Allowed: the page that sends the user back to the device. */
  openDeviceApproved(page: Page): Promise<void>;
  close(): Promise<void>;
}

async function logoServer(): Promise<Server> {
  const server = createServer((request, response) => {
    if (request.url === '/.well-known/openid-configuration') {
      // The discovery document of the showcase's identity provider (console-identity-showcase.ts).
      const issuer = `http://${request.headers.host}`;
      const document = { issuer, authorization_endpoint: `${issuer}/authorize`, token_endpoint: `${issuer}/token` };
      return void response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(document));
    }
    const svg = request.url === '/brand.svg' ? BRAND_LOGO : request.url === '/client.svg' ? CLIENT_LOGO : undefined;
    if (svg === undefined) return void response.writeHead(404).end();
    response.writeHead(200, { 'content-type': 'image/svg+xml', 'cache-control': 'max-age=60' }).end(svg);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return server;
}

export async function startShowcase(brand: { readonly primaryColor?: string } = {}): Promise<Showcase> {
  const logos = await logoServer();
  const logoOrigin = `http://127.0.0.1:${(logos.address() as { port: number }).port}`;
  const keysDir = await mkdtemp(join(tmpdir(), 'oauth-showcase-'));
  // The server's clock: moved back an hour and home again to replay the traffic the console's charts draw.
  let offset = 0;
  const clock = () => Date.now() + offset;
  const store = new MemoryStore(clock);
  try {
    // Keys from two hours ago (the replayed hour is signed by them), and a successor scheduled in three days.
    await rotateKeys(keysDir, { delay: 0, accessTokenTtl: 3600, now: Math.floor(Date.now() / 1000) - 7200 });
    await rotateKeys(keysDir, { alg: 'ES256', delay: 3 * 86_400, accessTokenTtl: 3600 });
    const port = await freePort();
    const issuer = `http://127.0.0.1:${port}`;
    const config = loadConfig({
      ISSUER: issuer,
      PORT: String(port),
      KEYS_DIR: keysDir,
      LOG_LEVEL: 'silent',
      BRAND_NAME: 'Acme Identity',
      BRAND_LOGO_URL: `${logoOrigin}/brand.svg`,
      BRAND_PRIMARY_COLOR: brand.primaryColor ?? '#6d28d9',
      // The identity provider added through the console (its discovery on the logo server, http on loopback), its secret sealed.
      IDENTITY_PROVIDERS_ALLOW_INSECURE: 'true',
      ENTRIES_ENCRYPTION_KEY: SHOWCASE_ENTRIES_KEY,
    });
    const clients = ClientRegistry.fromMetadata([
      {
        client_id: 'photos',
        client_name: 'Acme Photos',
        client_uri: 'https://photos.example.com/',
        logo_uri: `${logoOrigin}/client.svg`,
        redirect_uris: [REDIRECT_URI],
        grant_types: ['authorization_code', 'refresh_token'],
        scope: 'photos:read photos:write profile',
        token_endpoint_auth_method: 'none',
      },
      {
        client_id: 'tv',
        client_name: 'Acme TV',
        logo_uri: `${logoOrigin}/client.svg`,
        grant_types: ['urn:ietf:params:oauth:grant-type:device_code'],
        scope: 'photos:read profile',
        token_endpoint_auth_method: 'none',
      },
      ...CONSOLE_SHOWCASE_CLIENTS,
    ]);
    const users = UserRegistry.fromEntries([
      { username: SHOWCASE_USER.username, password_hash: cheapPasswordHash(SHOWCASE_USER.password), sub: SHOWCASE_USER.sub },
      ...CONSOLE_SHOWCASE_USERS,
    ]);
    const resources = ResourceRegistry.fromEntries([PHOTOS_RESOURCE]);
    const workloads = WorkloadTrustRegistry.fromEntries(SHOWCASE_TRUSTS, 'trusts');
    const entrySync = new EntrySync(store.entries, { intervalSeconds: config.entries.syncIntervalSeconds });
    const app = await buildServer(config, {
      keystore: await Keystore.open(keysDir, Math.floor(Date.now() / 1000), { accessTokenAlg: config.accessTokenSigningAlg }),
      clients,
      users,
      resources,
      workloads,
      entrySync,
      store,
      signer: new Signer(`showcase-${Math.random().toString(36).slice(2)}-0123456789abcdef`),
      logger: false,
      clock,
    });
    // The console's users, identity providers and workload trusts: some added through the admin services.
    const registries = { clients, users, resources, workloads };
    await seedIdentityEntries(adminServicesFor(config, { store, sync: entrySync, registries, clock }), logoOrigin);
    await app.listen({ port, host: '127.0.0.1' });
    await replayTheLastHour(app, (ms) => {
      offset = ms;
    });
    // alice's connected app (the account page), her consent then forgotten: the consent pages show a first one.
    await connectPhotos(app, SHOWCASE_USER, REDIRECT_URI, PHOTOS_API);
    await store.consents.forgetConsent(SHOWCASE_USER.sub, 'photos');

    const authorizeUrl = (redirectUri: string) =>
      `${issuer}/oauth2/authorize?${new URLSearchParams({
        response_type: 'code',
        client_id: 'photos',
        redirect_uri: redirectUri,
        scope: 'photos:read photos:write',
        resource: PHOTOS_API,
        state: 'showcase',
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        code_challenge_method: 'S256',
      })}`;
    const openLogin = async (page: Page) => {
      await page.goto(authorizeUrl(REDIRECT_URI));
    };
    const openConsent = async (page: Page) => {
      await openLogin(page);
      await page.locator('#username').fill(SHOWCASE_USER.username);
      await page.locator('#password').fill(SHOWCASE_USER.password);
      await Promise.all([page.waitForURL(/\/oauth2\/authorize\?/), page.locator('button[type=submit]').click()]);
      await page.waitForSelector('button[value=allow]');
    };
    /** What a TV asks for at the device authorization endpoint; the browser goes to its verification_uri_complete. */
    const openDeviceCode = async (page: Page) => {
      const started = await fetch(`${issuer}/oauth2/device_authorization`, {
        method: 'POST',
        body: new URLSearchParams({ client_id: 'tv', scope: 'photos:read', resource: PHOTOS_API }),
      });
      await page.goto(((await started.json()) as { verification_uri_complete: string }).verification_uri_complete);
    };
    const openDeviceConsent = async (page: Page) => {
      await openDeviceCode(page);
      await Promise.all([page.waitForURL(`${issuer}/device`), page.locator('button[type=submit]').click()]);
      await page.locator('#username').fill(SHOWCASE_USER.username);
      await page.locator('#password').fill(SHOWCASE_USER.password);
      await Promise.all([page.waitForURL(/\/device\?/), page.locator('button[type=submit]').click()]);
      await page.waitForSelector('button[value=allow]');
    };
    return {
      ...consoleShowcase(issuer, SHOWCASE_USER),
      issuer,
      logoOrigin,
      openLogin,
      openConsent,
      openDeviceCode,
      openDeviceConsent,
      async openDeviceApproved(page) {
        await openDeviceConsent(page);
        await Promise.all([page.waitForURL(/\/oauth2\/authorize\/consent$/), page.locator('button[value=allow]').click()]);
      },
      async openStepUpConsent(page) {
        const approved = { scope: ['photos:read'], audiences: [PHOTOS_API] };
        await store.consents.rememberConsent(SHOWCASE_USER.sub, 'photos', approved, 600);
        try {
          await openConsent(page);
          await page.waitForSelector('ul.shared', { timeout: 1000 });
        } finally {
          // The other pages show a first consent.
          await store.consents.forgetConsent(SHOWCASE_USER.sub, 'photos');
        }
      },
      async openError(page) {
        await page.goto(authorizeUrl('https://photos.example.net/callback'));
      },
      async close() {
        await app.close();
        await entrySync.stop();
        await store.close();
        logos.close();
        await rm(keysDir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    logos.close();
    await store.close();
    await rm(keysDir, { recursive: true, force: true });
    throw err;
  }
}

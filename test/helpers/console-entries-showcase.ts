import type { Page } from 'playwright-core';
import { PHOTOS_API } from './console.js';

/**
 * The console's client and resource pages of the showcase: each opened signed in as the
 * administrator, with a client and a resource added through the console's own forms when
 * they are not there yet (the showcase's file has `reports` and the photos API, read-only).
 */

export interface ConsoleEntriesShowcase {
  openConsoleClients(page: Page): Promise<void>;
  openConsoleNewClient(page: Page): Promise<void>;
  /** The new client's form sent with a redirect URI the rules refuse: the problem next to its field. */
  openConsoleClientProblems(page: Page): Promise<void>;
  /** A client just created: its secret, once. */
  openConsoleClientSecret(page: Page): Promise<void>;
  openConsoleClientEdit(page: Page): Promise<void>;
  /** A client of the file: read-only. */
  openConsoleClientFile(page: Page): Promise<void>;
  openConsoleClientRotate(page: Page): Promise<void>;
  openConsoleClientDelete(page: Page): Promise<void>;
  openConsoleResources(page: Page): Promise<void>;
  openConsoleNewResource(page: Page): Promise<void>;
  openConsoleResourceEdit(page: Page): Promise<void>;
  openConsoleResourceFile(page: Page): Promise<void>;
  openConsoleResourceDelete(page: Page): Promise<void>;
}

const CLIENT = 'nightly-export';
const RESOURCE = 'https://reports.example.com/';

async function submit(page: Page): Promise<void> {
  await Promise.all([page.waitForLoadState('load'), page.locator('form.entry button[type=submit]').click()]);
  await page.waitForSelector('h1');
}

/** `signedIn(page, path)`: opens `path` signed in as the administrator. */
export function consoleEntriesShowcase(issuer: string, signedIn: (page: Page, path: string) => Promise<void>): ConsoleEntriesShowcase {
  let secrets = 0;
  const createClient = async (page: Page, clientId: string) => {
    await page.goto(`${issuer}/admin/clients/new`);
    await page.locator('#client_id').fill(clientId);
    await page.locator('#client_name').fill('Nightly export');
    await page.locator('#scope').fill('photos:read');
    await submit(page);
  };
  /** Signed in, with the client added here; then `path`. */
  const withClient = async (page: Page, path: string) => {
    await signedIn(page, '/admin/clients');
    const found = await page.goto(`${issuer}/admin/clients/edit?client_id=${CLIENT}`);
    if (found?.status() === 404) await createClient(page, CLIENT);
    await page.goto(`${issuer}${path}`);
  };
  const withResource = async (page: Page, path: string) => {
    await signedIn(page, '/admin/resources');
    const found = await page.goto(`${issuer}/admin/resources/edit?resource=${encodeURIComponent(RESOURCE)}`);
    if (found?.status() === 404) {
      await page.goto(`${issuer}/admin/resources/new`);
      await page.locator('#resource').fill(RESOURCE);
      await page.locator('#name').fill('Acme Reports API');
      await page.locator('#scope').fill('reports:read reports:write');
      await submit(page);
    }
    await page.goto(`${issuer}${path}`);
  };
  return {
    openConsoleClients: (page) => withClient(page, '/admin/clients'),
    openConsoleNewClient: (page) => signedIn(page, '/admin/clients/new'),
    async openConsoleClientProblems(page) {
      await signedIn(page, '/admin/clients/new');
      await page.locator('#client_id').fill('web-app');
      await page.locator('#grant_types-0').check();
      await page.locator('#redirect_uris').fill('http://app.example.com/callback');
      await submit(page);
    },
    async openConsoleClientSecret(page) {
      await signedIn(page, '/admin/clients');
      secrets += 1;
      await createClient(page, secrets === 1 ? 'backup-job' : `backup-job-${secrets}`);
    },
    openConsoleClientEdit: (page) => withClient(page, `/admin/clients/edit?client_id=${CLIENT}`),
    openConsoleClientFile: (page) => signedIn(page, '/admin/clients/edit?client_id=reports'),
    openConsoleClientRotate: (page) => withClient(page, `/admin/clients/secret?client_id=${CLIENT}`),
    openConsoleClientDelete: (page) => withClient(page, `/admin/clients/delete?client_id=${CLIENT}`),
    openConsoleResources: (page) => withResource(page, '/admin/resources'),
    openConsoleNewResource: (page) => signedIn(page, '/admin/resources/new'),
    openConsoleResourceEdit: (page) => withResource(page, `/admin/resources/edit?resource=${encodeURIComponent(RESOURCE)}`),
    openConsoleResourceFile: (page) => signedIn(page, `/admin/resources/edit?resource=${encodeURIComponent(PHOTOS_API)}`),
    openConsoleResourceDelete: (page) => withResource(page, `/admin/resources/delete?resource=${encodeURIComponent(RESOURCE)}`),
  };
}

import type { Page } from 'playwright-core';
import t from 'tap';
import { launchChromium } from '../helpers/chromium.js';
import { ROOT } from '../helpers/console.js';
import { startConsoleServer } from '../helpers/console-browser.js';

/**
 * The console's clients in Chromium: an administrator creates a client_credentials client,
 * takes its secret (JavaScript off: from the page, where it is a read-only field; on: with
 * the copy button, from the clipboard), and that client gets a token; the scope edited, the
 * next token carries the new scope; the client deleted after its confirmation, the token
 * endpoint refuses it (401 invalid_client).
 */

const SESSION_SECRET = 'console-clients-browser-session-secret-0123456789';

t.test('the console creates, edits and deletes a client in Chromium', async (t) => {
  const { issuer } = await startConsoleServer(t, { sessionSecret: SESSION_SECRET, clients: [] });
  const chromium = await launchChromium(t);
  const token = async (clientId: string, secret: string) => {
    const res = await fetch(`${issuer}/oauth2/token`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}` },
      body: new URLSearchParams({ grant_type: 'client_credentials' }),
    });
    const body = (await res.json()) as Record<string, string>;
    const scope =
      body.access_token === undefined
        ? undefined
        : JSON.parse(Buffer.from(body.access_token.split('.')[1] as string, 'base64url').toString()).scope;
    return { status: res.status, error: body.error, scope };
  };
  const heading = (page: Page) => page.getByRole('heading', { level: 1 }).textContent();

  for (const javaScriptEnabled of [false, true]) {
    const clientId = javaScriptEnabled ? 'nightly-js' : 'nightly';
    t.test(`create, copy the secret, a token; edit the scope; delete (JavaScript ${javaScriptEnabled ? 'on' : 'off'})`, async (t) => {
      const context = await chromium.newContext({ javaScriptEnabled, locale: 'en-US' });
      t.teardown(() => context.close());
      if (javaScriptEnabled) await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: issuer });
      const page = await context.newPage();
      await page.goto(`${issuer}/admin/clients`);
      await page.getByLabel('Username').fill(ROOT.username);
      await page.getByLabel('Password', { exact: true }).fill(ROOT.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(`${issuer}/admin/clients`);
      await page.getByRole('link', { name: 'New client' }).click();
      t.equal(await heading(page), 'New client');
      await page.getByLabel('Client ID').fill(clientId);
      await page.getByLabel('Name').fill('Nightly export');
      t.ok(await page.getByRole('checkbox', { name: 'client_credentials' }).isChecked(), 'client_credentials, the default');
      await page.getByLabel('Scopes').fill('photos:read');
      await page.getByRole('button', { name: 'Create the client' }).click();
      t.equal(await heading(page), 'The client secret');

      const copy = page.getByRole('button', { name: 'Copy the secret' });
      let secret: string;
      if (javaScriptEnabled) {
        await copy.click();
        // The clipboard write settles after the click: wait for the status it sets.
        await page.getByRole('status').filter({ hasText: /\S/ }).waitFor({ timeout: 10_000 });
        t.equal(await page.getByRole('status').textContent(), 'The secret is on the clipboard.');
        secret = (await page.evaluate('navigator.clipboard.readText()')) as string;
        t.equal(secret, await page.getByLabel('Client secret').inputValue(), 'the clipboard holds the secret shown');
      } else {
        const button = page.locator('button[data-copy]');
        t.equal(await button.count(), 1);
        t.notOk(await button.isVisible(), 'without JavaScript, no copy button to press: the secret is selectable');
        secret = await page.getByLabel('Client secret').inputValue();
      }
      t.match(secret, /^[A-Za-z0-9_-]{43,}$/);
      t.same(await token(clientId, secret), { status: 200, error: undefined, scope: 'photos:read' });

      await page.getByRole('link', { name: 'Done: back to the client' }).click();
      t.equal(await heading(page), `Client ${clientId}`);
      t.equal(await page.content().then((html) => html.includes(secret)), false, 'the secret is not shown again');
      await page.getByLabel('Scopes').fill('photos:read photos:write');
      await page.getByRole('button', { name: 'Save changes' }).click();
      t.equal(await page.getByRole('status').first().textContent(), 'The client was saved.');
      t.same(await token(clientId, secret), { status: 200, error: undefined, scope: 'photos:read photos:write' }, 'the new scope');

      await page.getByRole('link', { name: 'Delete the client' }).click();
      t.equal(await heading(page), 'Delete this client?');
      t.match(await page.locator('main').textContent(), /Nightly export \(nightly(-js)?\) is refused everywhere within a second/);
      await page.getByRole('button', { name: 'Delete the client' }).click();
      t.equal(await page.getByRole('status').first().textContent(), 'The client was deleted and its grants revoked.');
      t.same(await token(clientId, secret), { status: 401, error: 'invalid_client', scope: undefined }, 'refused');
    });
  }
});

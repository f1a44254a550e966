import type { BrowserContext, Page } from 'playwright-core';
import t, { type Test } from 'tap';
import { hashClientSecret } from '../../src/clients/secret.js';
import { Signer } from '../../src/session/signer.js';
import { ALICE } from '../helpers/authorize-fixtures.js';
import { pkcePair } from '../helpers/browser-flow.js';
import { launchChromium } from '../helpers/chromium.js';
import { PHOTOS_API, ROOT } from '../helpers/console.js';
import { startConsoleServer } from '../helpers/console-browser.js';
import { startCallbackServer } from '../helpers/mcp-oauth.js';

/**
 * The console and the account page in Chromium, with JavaScript off (nothing there needs it):
 * an administrator signs in at /admin with a password, sees the overview's charts and revokes
 * a grant; a person without the role gets the 403 page and the admin API refuses the tokens
 * of that session; a person connects two apps with the code flow, finds both on /account with
 * their scopes in words and revokes one (its refresh token refused, the other's working);
 * "Sign out everywhere" ends the session of another browser. The administrator's sign-in runs
 * with JavaScript on too.
 */

const SESSION_SECRET = 'console-browser-test-session-secret-0123456789';
const APP_SECRET = 'console-browser-app-secret-0123456789abcdefghij';
const ASKS = { photos: 'photos:read photos:write', printer: 'photos:read' } as const;

async function startServer(t: Test, redirectUri: string) {
  const app = ({ id, name }: { id: string; name: string }) => ({
    client_id: id,
    client_name: name,
    client_secret_hash: hashClientSecret(APP_SECRET),
    redirect_uris: [redirectUri],
    grant_types: ['authorization_code', 'refresh_token'],
    scope: 'photos:read photos:write',
  });
  const clients = [app({ id: 'photos', name: 'Acme Photos' }), app({ id: 'printer', name: 'Acme Prints' })];
  return startConsoleServer(t, { sessionSecret: SESSION_SECRET, clients });
}

t.test('the console and the account page in Chromium', async (t) => {
  const client = await startCallbackServer(t);
  const { issuer } = await startServer(t, client.redirectUri);
  const chromium = await launchChromium(t);
  const context = async (t: Test, javaScriptEnabled = false): Promise<BrowserContext> => {
    const created = await chromium.newContext({ javaScriptEnabled, locale: 'en-US' });
    t.teardown(() => created.close());
    return created;
  };
  const signIn = async (page: Page, user: { username: string; password: string }) => {
    await page.getByLabel('Username').fill(user.username);
    await page.getByLabel('Password', { exact: true }).fill(user.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
  };
  const tokenRequest = async (form: Record<string, string>) => {
    const res = await fetch(`${issuer}/oauth2/token`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${form.client_id}:${APP_SECRET}`).toString('base64')}` },
      body: new URLSearchParams(Object.fromEntries(Object.entries(form).filter(([name]) => name !== 'client_id'))),
    });
    return { status: res.status, body: (await res.json()) as Record<string, string> };
  };
  /** In `page` (signed in or not), `clientId` is allowed; its code redeemed: the refresh token. */
  const connect = async (page: Page, clientId: keyof typeof ASKS, user?: { username: string; password: string }) => {
    const { verifier, challenge } = pkcePair();
    // prompt=consent: the consent page each time, whatever the person allowed before.
    const query = {
      response_type: 'code',
      client_id: clientId,
      redirect_uri: client.redirectUri,
      scope: ASKS[clientId],
      resource: PHOTOS_API,
      prompt: 'consent',
    };
    await page.goto(
      `${issuer}/oauth2/authorize?${new URLSearchParams({ ...query, state: clientId, code_challenge: challenge, code_challenge_method: 'S256' })}`,
    );
    if (user) await signIn(page, user);
    await page.getByRole('button', { name: 'Allow' }).click();
    const arrived = await client.next();
    const code = arrived.get('code') as string;
    const redeemed = await tokenRequest({
      client_id: clientId,
      grant_type: 'authorization_code',
      code,
      redirect_uri: client.redirectUri,
      code_verifier: verifier,
    });
    return redeemed.body.refresh_token as string;
  };

  for (const javaScriptEnabled of [false, true]) {
    t.test(
      `an administrator signs in with a password, sees the charts, revokes a grant (JavaScript ${javaScriptEnabled ? 'on' : 'off'})`,
      async (t) => {
        const userPage = await (await context(t)).newPage();
        const refreshToken = await connect(userPage, 'printer', { username: 'bob', password: 'bob-password-1' });
        const page = await (await context(t, javaScriptEnabled)).newPage();
        await page.goto(`${issuer}/admin`);
        t.equal(await page.title(), 'Sign in');
        await signIn(page, ROOT);
        await page.waitForURL(`${issuer}/admin`);
        t.equal(await page.title(), 'Overview – Console');
        t.equal(await page.getByRole('img', { name: 'Tokens issued, by grant type' }).count(), 1, 'the chart, an image with its title');
        t.match(await page.locator('#issued-desc').textContent(), /authorization_code \d+/);
        await page.getByRole('link', { name: 'Grants' }).click();
        await page.getByLabel('User (sub)').fill('bob');
        await page.getByRole('button', { name: 'Show grants' }).click();
        await page.getByRole('link', { name: /^Revoke/ }).click();
        t.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Revoke this grant?');
        await page.getByRole('button', { name: 'Revoke the grant' }).click();
        t.equal(await page.getByRole('status').textContent(), 'The grant was revoked.');
        const refused = await tokenRequest({ client_id: 'printer', grant_type: 'refresh_token', refresh_token: refreshToken });
        t.same([refused.status, refused.body.error], [400, 'invalid_grant'], "the app's refresh token is refused");
      },
    );
  }

  t.test('a person without the role: the 403 page, and the admin API refuses the tokens of the session', async (t) => {
    const browserContext = await context(t);
    const page = await browserContext.newPage();
    const response = await page.goto(`${issuer}/admin`);
    t.ok(response);
    await signIn(page, ALICE);
    await page.waitForSelector('h1');
    t.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Your account is not an administrator of this server');
    const sealed = (await browserContext.cookies(issuer)).find((cookie) => cookie.name === 'oauth_console');
    t.match(sealed, { httpOnly: true, sameSite: 'Lax' }, 'the session cookie: HttpOnly');
    const opened = new Signer(SESSION_SECRET).open<{ tokens: { accessToken: string } }>(
      'console-session',
      sealed?.value,
      Math.floor(Date.now() / 1000),
    );
    const api = await fetch(`${issuer}/admin/v1/keys`, { headers: { authorization: `Bearer ${opened?.tokens.accessToken}` } });
    t.equal(api.status, 403);
    t.match(await api.json(), { type: 'urn:oauth2-token-service:problem:insufficient-scope' });
    await page.getByRole('button', { name: 'Sign out' }).click();
    t.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'You are signed out of the console');
    t.notOk(
      (await browserContext.cookies(issuer)).some((cookie) => cookie.name === 'oauth_console'),
      'its cookie gone',
    );
  });

  t.test('a person connects two apps, finds them on /account in words, revokes one', async (t) => {
    const page = await (await context(t)).newPage();
    const photos = await connect(page, 'photos', ALICE);
    const printer = await connect(page, 'printer');
    await page.goto(`${issuer}/account`);
    t.equal(await page.title(), 'Your account');
    const apps = page.locator('ul.apps > li');
    t.same(await apps.locator('h3').allTextContents(), ['Acme Prints', 'Acme Photos']);
    t.match(await apps.nth(1).textContent(), /See your photos and albums[\s\S]*Upload and edit photos/);
    await page.getByRole('button', { name: 'Revoke access Acme Prints' }).click();
    t.equal(await page.getByRole('status').textContent(), 'Acme Prints no longer has access.');
    t.same(await page.locator('ul.apps > li h3').allTextContents(), ['Acme Photos']);
    const refused = await tokenRequest({ client_id: 'printer', grant_type: 'refresh_token', refresh_token: printer });
    t.equal(refused.status, 400, "the revoked app's refresh token is refused");
    const kept = await tokenRequest({ client_id: 'photos', grant_type: 'refresh_token', refresh_token: photos });
    t.equal(kept.status, 200, 'the other still works');
  });

  t.test('"Sign out everywhere" ends the session of another browser', async (t) => {
    const elsewhere = await (await context(t)).newPage();
    await elsewhere.goto(`${issuer}/account`);
    await signIn(elsewhere, ALICE);
    await elsewhere.waitForURL(`${issuer}/account`);
    const here = await (await context(t)).newPage();
    await here.goto(`${issuer}/account`);
    await signIn(here, ALICE);
    await here.getByRole('button', { name: 'Sign out everywhere' }).click();
    t.equal(await here.getByRole('heading', { level: 1 }).textContent(), 'You are signed out everywhere');
    await elsewhere.reload();
    t.equal(await elsewhere.title(), 'Sign in', 'the other browser must sign in again');
  });
});

import type { BrowserContext, Page } from 'playwright-core';
import t, { type Test } from 'tap';
import { freePort } from '../../harness/ports.js';
import { buildServer } from '../../src/app.js';
import { ClientRegistry } from '../../src/clients/registry.js';
import { loadConfig } from '../../src/config/index.js';
import { Keystore } from '../../src/keys/keystore.js';
import { Signer } from '../../src/session/signer.js';
import { MemoryStore } from '../../src/store/memory.js';
import { launchChromium } from '../helpers/chromium.js';
import { consoleUsers, ROOT } from '../helpers/console.js';
import { keysDirWithSigningKey } from '../helpers/keys.js';

/**
 * The console's users in Chromium, with JavaScript off: an administrator creates a user
 * through the form, that user opens /account in another browser, the administrator disables
 * them — their open session ends (the next /account load asks to sign in) and they cannot
 * sign in again; enabled and made an administrator, they reach the console.
 */

const SESSION_SECRET = 'console-users-browser-session-secret-0123456789';
const CAROL = { username: 'carol', password: 'carol-browser-password-2026' };

async function startServer(t: Test): Promise<string> {
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const keysDir = await keysDirWithSigningKey(t, { algs: ['ES256'] });
  const config = loadConfig({ ISSUER: issuer, PORT: String(port), KEYS_DIR: keysDir, LOG_LEVEL: 'silent', SESSION_SECRET });
  const store = new MemoryStore(Date.now);
  const server = await buildServer(config, {
    keystore: await Keystore.open(keysDir, Math.floor(Date.now() / 1000), { accessTokenAlg: config.accessTokenSigningAlg }),
    clients: ClientRegistry.fromMetadata([]),
    users: consoleUsers(),
    store,
    signer: new Signer(SESSION_SECRET),
    logger: false,
  });
  await server.listen({ port, host: '127.0.0.1' });
  t.teardown(async () => {
    await server.close();
    await store.close();
  });
  return issuer;
}

t.test("the console's users in Chromium, JavaScript off", async (t) => {
  const issuer = await startServer(t);
  const chromium = await launchChromium(t);
  const context = async (t: Test): Promise<BrowserContext> => {
    const created = await chromium.newContext({ javaScriptEnabled: false, locale: 'en-US' });
    t.teardown(() => created.close());
    return created;
  };
  const signIn = async (page: Page, user: { username: string; password: string }) => {
    await page.getByLabel('Username').fill(user.username);
    await page.getByLabel('Password', { exact: true }).fill(user.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
  };
  const admin = await (await context(t)).newPage();
  await admin.goto(`${issuer}/admin/users`);
  await signIn(admin, ROOT);
  await admin.waitForURL(`${issuer}/admin/users`);

  t.test('an administrator creates a user; disabled, their open session at /account ends and they cannot sign in', async (t) => {
    t.equal(await admin.title(), 'Users – Console');
    await admin.getByRole('link', { name: 'New user' }).click();
    await admin.getByLabel('Username').fill(CAROL.username);
    await admin.getByLabel('Password', { exact: true }).fill('short');
    await admin.getByRole('button', { name: 'Create' }).click();
    t.equal(await admin.locator('#password-error').textContent(), 'must have at least 8 characters', 'the problem next to the field');
    t.equal(await admin.getByLabel('Username').inputValue(), 'carol', 'the username kept');
    t.equal(await admin.getByLabel('Password', { exact: true }).inputValue(), '', 'the password not');
    await admin.getByLabel('Password', { exact: true }).fill(CAROL.password);
    await admin.getByRole('button', { name: 'Create' }).click();
    t.equal(await admin.getByRole('status').textContent(), 'The user was created.');

    const carol = await (await context(t)).newPage();
    await carol.goto(`${issuer}/account`);
    await signIn(carol, CAROL);
    await carol.waitForURL(`${issuer}/account`);
    t.equal(await carol.title(), 'Your account', 'carol’s session is open');

    await admin.getByRole('button', { name: 'Disable the user' }).click();
    t.equal(await admin.getByRole('status').textContent(), 'The user was disabled: their sessions ended and their grants were revoked.');
    await carol.reload();
    t.equal(await carol.title(), 'Sign in', 'the next /account load asks to sign in');
    await signIn(carol, CAROL);
    t.equal(await carol.getByRole('alert').textContent(), 'Incorrect username or password.', 'a disabled user cannot sign in');
    t.equal(await carol.title(), 'Sign in');
  });

  t.test('enabled and made an administrator, the user reaches the console', async (t) => {
    await admin.goto(`${issuer}/admin/users/user?sub=carol`);
    await admin.getByRole('button', { name: 'Enable the user' }).click();
    t.equal(await admin.getByRole('status').textContent(), 'The user was enabled.');
    await admin.getByRole('button', { name: 'Make administrator' }).click();
    t.equal(await admin.getByRole('status').textContent(), 'The role was changed. It applies from their next sign-in.');
    const carol = await (await context(t)).newPage();
    await carol.goto(`${issuer}/admin`);
    await signIn(carol, CAROL);
    await carol.waitForURL(`${issuer}/admin`);
    t.equal(await carol.title(), 'Overview – Console');
    await carol.getByRole('link', { name: 'Users' }).click();
    await carol.getByRole('link', { name: 'carol' }).click();
    t.match(await carol.locator('main').textContent(), /You cannot disable your own account: another administrator has to\./);
    t.equal(await carol.getByRole('button', { name: 'Disable the user' }).count(), 0, 'no way to lock themselves out');
  });
});

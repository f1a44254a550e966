import type { Test } from 'tap';
import { newClientSecret } from '../../src/admin/clients.js';
import { UserRegistry } from '../../src/users/registry.js';
import { AUTHORIZE_CLIENTS, WEB_REDIRECT, WEB_SECRET } from '../helpers/authorize-fixtures.js';
import { authorizeUrl, codeRequest, InjectBrowser, pkcePair, signInAndDecide } from '../helpers/browser-flow.js';
import { cheapPasswordHash } from '../helpers/passwords.js';
import type { RedisTestStore } from '../helpers/redis-stores.js';
import { codeFlowClient, refreshTokenOf, tokenRequest } from '../helpers/security-flows.js';
import { buildTestServer, type TestServer } from '../helpers/server.js';

/**
 * Two instances on one store, as a fleet runs: each with its own copy of the entries, kept
 * by the change channel. What one instance's admin service changes, the other honours within
 * a second, measured (polled every 10 ms, never a fixed sleep).
 */

export type OpenPair = (t: Test) => Promise<readonly [RedisTestStore, RedisTestStore]>;

/** Propagation bound of the issue: every instance sees a change within 1 s. */
const WITHIN_MS = 1000;

const USERS = [{ username: 'alice', password_hash: cheapPasswordHash('wonderland-2026'), sub: 'user-alice' }];
const CLIENTS = [
  ...AUTHORIZE_CLIENTS,
  {
    client_id: 'legacy',
    client_secret_hash: (AUTHORIZE_CLIENTS[0] as { client_secret_hash: string }).client_secret_hash,
    grant_types: ['password', 'refresh_token'],
    scope: 'read',
  },
];

/** How long until `check` holds, polling every 10 ms; fails after 5 s. */
export async function timeUntil(what: string, check: () => Promise<boolean>): Promise<number> {
  const from = performance.now();
  while (!(await check())) {
    if (performance.now() - from > 5000) throw new Error(`${what}: not within 5 s`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return Math.round(performance.now() - from);
}

async function instances(t: Test, open: OpenPair): Promise<readonly [TestServer, TestServer]> {
  const [a, b] = await open(t);
  const first = await buildTestServer(t, { store: a, clients: CLIENTS, users: UserRegistry.fromEntries(USERS) });
  const second = await buildTestServer(t, { store: b, keysDir: first.keysDir, clients: CLIENTS, users: UserRegistry.fromEntries(USERS) });
  await Promise.all([first.entrySync.ready(5000), second.entrySync.ready(5000)]);
  return [first, second];
}

const ccToken = (s: TestServer, clientId: string, secret: string, scope?: string) =>
  tokenRequest(s.app, clientId, secret, { grant_type: 'client_credentials', ...(scope ? { scope } : {}) });

export function entriesAcrossInstances(t: Test, name: string, open: OpenPair): void {
  t.test(`${name}: a client created on A gets tokens from B within 1 s; changed on B, A honours it`, async (t) => {
    const [a, b] = await instances(t, open);
    const { secret, hash } = newClientSecret();
    await a.admin.clients.create({ client_id: 'reporting', client_secret_hash: hash, grant_types: ['client_credentials'], scope: 'read' });
    const seen = await timeUntil('B issues', async () => (await ccToken(b, 'reporting', secret)).statusCode === 200);
    t.ok(seen < WITHIN_MS, `B issued a client_credentials token ${seen} ms after A's create`);
    t.equal((await ccToken(a, 'reporting', secret)).statusCode, 200, 'A at once (its own write)');

    await b.admin.clients.replace(
      'reporting',
      { client_id: 'reporting', client_secret_hash: hash, grant_types: ['client_credentials'], scope: 'read write' },
      1,
    );
    const changed = await timeUntil('A honours', async () => (await ccToken(a, 'reporting', secret, 'write')).statusCode === 200);
    t.ok(changed < WITHIN_MS, `A honoured B's change ${changed} ms later`);
    t.same(
      [a, b].map((s) => s.registries.clients.held('reporting')?.stored?.rev),
      [2, 2],
    );
  });

  t.test(`${name}: deleted on one, refused on both within 1 s, and its refresh tokens are dead`, async (t) => {
    const [a, b] = await instances(t, open);
    const { secret, hash } = newClientSecret();
    await a.admin.clients.create(codeFlowClient('portal', hash));
    await timeUntil('B knows portal', async () => b.registries.clients.get('portal') !== undefined);
    const refreshToken = await refreshTokenOf(b.app, 'portal', secret);
    t.same(await a.admin.clients.delete('portal'), { revokedGrants: 1 });
    const refusedByB = await timeUntil(
      'B refuses',
      async () =>
        (await tokenRequest(b.app, 'portal', secret, { grant_type: 'refresh_token', refresh_token: refreshToken })).statusCode === 401,
    );
    t.ok(refusedByB < WITHIN_MS, `B refused the client ${refusedByB} ms after the delete`);
    const atA = await tokenRequest(a.app, 'portal', secret, { grant_type: 'refresh_token', refresh_token: refreshToken });
    t.same([atA.statusCode, atA.json().error], [401, 'invalid_client']);
    await b.admin.clients.create(codeFlowClient('portal', hash));
    await timeUntil('A knows portal again', async () => a.registries.clients.get('portal') !== undefined);
    for (const s of [a, b]) {
      const res = await tokenRequest(s.app, 'portal', secret, { grant_type: 'refresh_token', refresh_token: refreshToken });
      t.same([res.statusCode, res.json().error], [400, 'invalid_grant'], 'the grant was revoked: its refresh token is dead');
    }
  });

  t.test(`${name}: a disabled user's session, refresh token and next sign-in are refused on both`, async (t) => {
    const [a, b] = await instances(t, open);
    const carol = { username: 'carol', password: 'carol-password-1' };
    await a.admin.users.create({ username: 'carol', password_hash: cheapPasswordHash(carol.password) });
    await timeUntil('B knows carol', async () => b.registries.users.get('carol') !== undefined);
    const browserOnB = new InjectBrowser(b.app);
    const signedIn = await signInAndDecide(browserOnB, codeRequest('web', WEB_REDIRECT, pkcePair().challenge), carol);
    t.equal(signedIn.statusCode, 303, 'carol signed in on B');
    const session = () => browserOnB.get(authorizeUrl(codeRequest('web', WEB_REDIRECT, pkcePair().challenge)));
    t.equal((await session()).statusCode, 302, 'her session stands on B');
    const tokens = (await tokenRequest(a.app, 'legacy', WEB_SECRET, { grant_type: 'password', ...carol })).json();

    // The code flow's grant, the one of the code her standing session got, and the password grant's.
    t.same(await a.admin.users.setDisabled('carol', true), { revokedGrants: 3 });
    const ended = await timeUntil('the session on B ends', async () => (await session()).statusCode === 200);
    t.ok(ended < WITHIN_MS, `her session on B ended ${ended} ms after A disabled her`);
    for (const s of [a, b]) {
      const refreshed = await tokenRequest(s.app, 'legacy', WEB_SECRET, {
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh_token,
      });
      t.same(refreshed.json(), { error: 'invalid_grant', error_description: 'the user is disabled' });
      const signIn = await tokenRequest(s.app, 'legacy', WEB_SECRET, { grant_type: 'password', ...carol });
      t.same(signIn.json(), { error: 'invalid_grant', error_description: 'invalid username or password' });
    }
  });
}

import type { Test } from 'tap';
import { hashClientSecret } from '../../src/clients/secret.js';
import { UserRegistry } from '../../src/users/registry.js';
import { ADMIN_CLIENTS, adminToken, expectProblem } from '../helpers/admin.js';
import { type AdminCalls, adminCalls } from '../helpers/admin-api.js';
import { AUTHORIZE_CLIENTS, WEB_REDIRECT, WEB_SECRET } from '../helpers/authorize-fixtures.js';
import { authorizeUrl, codeRequest, InjectBrowser, pkcePair, signInAndDecide } from '../helpers/browser-flow.js';
import { cheapPasswordHash } from '../helpers/passwords.js';
import { refreshTokenOf, tokenRequest } from '../helpers/security-flows.js';
import { buildTestServer, type TestServer } from '../helpers/server.js';
import { type OpenPair, timeUntil } from './entries-instances.js';

/**
 * Issue 30's proof through HTTP: two instances (buildServer twice) on one store, each with its
 * own copy of the entries. What one instance's admin API changes, the other honours within a
 * second, measured (polled every 10 ms, never a fixed sleep) and printed.
 */

const WITHIN_MS = 1000;

const USERS = [{ username: 'alice', password_hash: cheapPasswordHash('wonderland-2026'), sub: 'user-alice' }];
const CLIENTS = [
  ...ADMIN_CLIENTS,
  ...AUTHORIZE_CLIENTS.filter((c) => c.client_id !== 'service' && c.client_id !== 'spa'),
  { client_id: 'legacy', client_secret_hash: hashClientSecret(WEB_SECRET), grant_types: ['password', 'refresh_token'], scope: 'read' },
];

interface Instance {
  readonly server: TestServer;
  readonly api: AdminCalls;
}

async function instances(t: Test, open: OpenPair): Promise<readonly [Instance, Instance]> {
  const [a, b] = await open(t);
  const first = await buildTestServer(t, { store: a, clients: CLIENTS, users: UserRegistry.fromEntries(USERS) });
  const second = await buildTestServer(t, { store: b, keysDir: first.keysDir, clients: CLIENTS, users: UserRegistry.fromEntries(USERS) });
  await Promise.all([first.entrySync.ready(5000), second.entrySync.ready(5000)]);
  return Promise.all(
    [first, second].map(async (server) => ({ server, api: adminCalls(server.app, await adminToken(server.app, 'operator')) })),
  ) as Promise<[Instance, Instance]>;
}

const cc = (s: TestServer, clientId: string, secret: string, scope?: string) =>
  tokenRequest(s.app, clientId, secret, { grant_type: 'client_credentials', ...(scope ? { scope } : {}) });

export function adminApiAcrossInstances(t: Test, name: string, open: OpenPair): void {
  t.test(`${name}: a client created through A's API gets a token from B within 1 s; changed through B, A honours it`, async (t) => {
    const [a, b] = await instances(t, open);
    const created = await a.api.post('/clients', { client_id: 'reporting', grant_types: ['client_credentials'], scope: 'read' });
    t.equal(created.statusCode, 201);
    const secret = created.json().client_secret as string;
    const seen = await timeUntil('B issues', async () => (await cc(b.server, 'reporting', secret)).statusCode === 200);
    t.ok(seen < WITHIN_MS, `B issued a client_credentials token ${seen} ms after A's POST`);

    const readOnA = await a.api.get('/clients/reporting');
    t.equal(readOnA.headers.etag, '"client-1"');
    const patched = await b.api.patch('/clients/reporting', { scope: 'read write' }, '"client-1"');
    t.same([patched.statusCode, patched.headers.etag], [200, '"client-2"']);
    const changed = await timeUntil('A honours', async () => (await cc(a.server, 'reporting', secret, 'write')).statusCode === 200);
    t.ok(changed < WITHIN_MS, `A honoured B's PATCH ${changed} ms later`);
    expectProblem(t, await a.api.put('/clients/reporting', { grant_types: ['client_credentials'] }, readOnA.headers.etag), {
      status: 412,
      type: 'precondition-failed',
      title: 'The entry changed since it was read (If-Match)',
      detail: 'client "reporting" is at rev 2, not 1: read it again',
    });
    t.same((await a.api.get('/clients/reporting')).json().scope, 'read write', "A's stale PUT wrote nothing");
    expectProblem(t, await b.api.patch('/clients/operator', { scope: 'admin:read' }), {
      status: 409,
      type: 'conflict-file-entry',
      title: 'The entry comes from a file and is read-only here',
      detail: 'client "operator" is declared in CLIENTS_FILE: change it there',
    });
  });

  t.test(`${name}: deleted through one API, refused on both within 1 s, and its refresh tokens are dead`, async (t) => {
    const [a, b] = await instances(t, open);
    const created = await a.api.post('/clients', {
      client_id: 'portal',
      redirect_uris: [WEB_REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      scope: 'read',
    });
    const secret = created.json().client_secret as string;
    await timeUntil('B knows portal', async () => b.server.registries.clients.get('portal') !== undefined);
    const refreshToken = await refreshTokenOf(b.server.app, 'portal', secret);
    t.equal((await a.api.delete('/clients/portal', '"client-1"')).statusCode, 204);
    const refusedByB = await timeUntil(
      'B refuses',
      async () =>
        (await tokenRequest(b.server.app, 'portal', secret, { grant_type: 'refresh_token', refresh_token: refreshToken })).statusCode ===
        401,
    );
    t.ok(refusedByB < WITHIN_MS, `B refused the client ${refusedByB} ms after A's DELETE`);
    for (const s of [a, b]) {
      const res = await tokenRequest(s.server.app, 'portal', secret, { grant_type: 'refresh_token', refresh_token: refreshToken });
      t.same([res.statusCode, res.json().error], [401, 'invalid_client']);
    }
    const again = await b.api.post('/clients', {
      client_id: 'portal',
      redirect_uris: [WEB_REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      scope: 'read',
    });
    const newSecret = again.json().client_secret as string;
    await timeUntil('A knows portal again', async () => a.server.registries.clients.get('portal') !== undefined);
    for (const s of [a, b]) {
      const res = await tokenRequest(s.server.app, 'portal', newSecret, { grant_type: 'refresh_token', refresh_token: refreshToken });
      t.same([res.statusCode, res.json().error], [400, 'invalid_grant'], 'the grant was revoked: its refresh token is dead');
    }
  });

  t.test(`${name}: a user disabled through A's API: their session, refresh token and next sign-in refused on both`, async (t) => {
    const [a, b] = await instances(t, open);
    const carol = { username: 'carol', password: 'carol-password-1' };
    t.equal((await a.api.post('/users', carol)).statusCode, 201);
    await timeUntil('B knows carol', async () => b.server.registries.users.get('carol') !== undefined);
    const browserOnB = new InjectBrowser(b.server.app);
    const signedIn = await signInAndDecide(browserOnB, codeRequest('web', WEB_REDIRECT, pkcePair().challenge), carol);
    t.equal(signedIn.statusCode, 303, 'carol signed in on B');
    const session = () => browserOnB.get(authorizeUrl(codeRequest('web', WEB_REDIRECT, pkcePair().challenge)));
    t.equal((await session()).statusCode, 302, 'her session stands on B');
    const tokens = (await tokenRequest(a.server.app, 'legacy', WEB_SECRET, { grant_type: 'password', ...carol })).json();

    const disabled = await a.api.patch('/users/carol', { disabled: true });
    t.same([disabled.statusCode, disabled.json().disabled], [200, true]);
    const ended = await timeUntil('the session on B ends', async () => (await session()).statusCode === 200);
    t.ok(ended < WITHIN_MS, `her session on B ended ${ended} ms after A's PATCH`);
    for (const s of [a, b]) {
      const refreshed = await tokenRequest(s.server.app, 'legacy', WEB_SECRET, {
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh_token,
      });
      t.same(refreshed.json(), { error: 'invalid_grant', error_description: 'the user is disabled' });
      const signIn = await tokenRequest(s.server.app, 'legacy', WEB_SECRET, { grant_type: 'password', ...carol });
      t.same(signIn.json(), { error: 'invalid_grant', error_description: 'invalid username or password' });
    }
    t.equal((await b.api.get('/users/carol')).json().disabled, true, 'B answers her disabled too');
  });
}

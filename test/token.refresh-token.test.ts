import t, { type Test } from 'tap';
import type { Store } from '../src/store/types.js';
import { RedisStore } from '../src/store/redis.js';
import { MemoryStore } from '../src/store/memory.js';
import { hashClientSecret } from '../src/clients/secret.js';
import { ALICE, AUTHORIZE_CLIENTS, testUsers, WEB_SECRET } from './helpers/authorize-fixtures.js';
import { startPrivateRedis } from './helpers/redis.js';
import { buildTestServer, NO_STORE_JSON } from './helpers/server.js';
import { TokenClient } from './helpers/token-client.js';

/** Clients with the password grant, so tests get a refresh family in one call. */
const CLIENTS = [
  ...AUTHORIZE_CLIENTS,
  { client_id: 'app', client_secret_hash: hashClientSecret(WEB_SECRET), grant_types: ['password', 'refresh_token'], scope: 'read write' },
  { client_id: 'other', client_secret_hash: hashClientSecret(WEB_SECRET), grant_types: ['password', 'refresh_token'], scope: 'read write' },
  { client_id: 'mobile', grant_types: ['password', 'refresh_token'], scope: 'read', token_endpoint_auth_method: 'none' },
];
const INVALID = 'the refresh token is invalid, expired, revoked, or was issued to another client';
const REUSED = 'the refresh token was already used: every token of this grant is now revoked';

async function setup(t: Test, openStore: (t: Test) => Promise<Store>, env: Record<string, string> = {}) {
  const store = await openStore(t);
  const server = await buildTestServer(t, { clients: CLIENTS, users: await testUsers(), store, env });
  const app = new TokenClient(server.app, 'app', WEB_SECRET);
  const firstTokens = async (client = app, scope = 'read write') => {
    const res = await client.token({ grant_type: 'password', username: ALICE.username, password: ALICE.password, scope });
    t.equal(res.statusCode, 200, 'password grant');
    return res.json() as { access_token: string; refresh_token: string; scope: string };
  };
  const clientNamed = (clientId: string, secret: string | null = WEB_SECRET) => new TokenClient(server.app, clientId, secret);
  return { ...server, app, firstTokens, clientNamed };
}

const expectInvalidGrant = (t: Test, res: { statusCode: number; json: () => unknown }, description: string) => {
  t.equal(res.statusCode, 400);
  t.same(res.json(), { error: 'invalid_grant', error_description: description });
};

function refreshSuite(t: Test, name: string, openStore: (t: Test) => Promise<Store>) {
  t.test(`grant_type=refresh_token (${name})`, async (t) => {
    t.test('rotation: a new refresh token each use; the old one is reuse, which revokes the family', async (t) => {
      const { app, firstTokens } = await setup(t, openStore, { REFRESH_REUSE_GRACE: '0' });
      const first = await firstTokens();
      const rotated = await app.refresh(first.refresh_token);
      t.equal(rotated.statusCode, 200);
      t.match(rotated.headers, NO_STORE_JSON);
      const second = rotated.json();
      t.same(Object.keys(second).sort(), ['access_token', 'expires_in', 'refresh_token', 'scope', 'token_type']);
      t.not(second.refresh_token, first.refresh_token);
      t.equal(second.refresh_token.split('.')[0], first.refresh_token.split('.')[0], 'same family');
      const third = (await app.refresh(second.refresh_token)).json();
      expectInvalidGrant(t, await app.refresh(first.refresh_token), REUSED);
      expectInvalidGrant(t, await app.refresh(third.refresh_token), INVALID);
    });

    t.test('grace: one retry of the just-rotated token gets the same successor; a second retry is reuse', async (t) => {
      const { app, firstTokens } = await setup(t, openStore, { REFRESH_REUSE_GRACE: '10' });
      const first = await firstTokens();
      const original = (await app.refresh(first.refresh_token)).json();
      const retry = await app.refresh(first.refresh_token);
      t.equal(retry.statusCode, 200);
      t.same(retry.json(), original, 'the same successor tokens');
      expectInvalidGrant(t, await app.refresh(first.refresh_token), REUSED);
      expectInvalidGrant(t, await app.refresh(original.refresh_token), INVALID);
    });

    t.test('grace: a retry after the window is reuse', async (t) => {
      const { app, firstTokens } = await setup(t, openStore, { REFRESH_REUSE_GRACE: '1' });
      const first = await firstTokens();
      const successor = (await app.refresh(first.refresh_token)).json();
      await new Promise((r) => setTimeout(r, 1100));
      expectInvalidGrant(t, await app.refresh(first.refresh_token), REUSED);
      expectInvalidGrant(t, await app.refresh(successor.refresh_token), INVALID);
    });

    t.test('grace applies only while the successor is still current', async (t) => {
      const { app, firstTokens } = await setup(t, openStore, { REFRESH_REUSE_GRACE: '10' });
      const first = await firstTokens();
      const second = (await app.refresh(first.refresh_token)).json();
      const third = (await app.refresh(second.refresh_token)).json();
      expectInvalidGrant(t, await app.refresh(first.refresh_token), REUSED);
      expectInvalidGrant(t, await app.refresh(third.refresh_token), INVALID);
    });

    t.test('bound to its client; a confidential client must authenticate', async (t) => {
      const { app, firstTokens, clientNamed } = await setup(t, openStore);
      const first = await firstTokens();
      expectInvalidGrant(t, await clientNamed('other').refresh(first.refresh_token), INVALID);
      const anonymous = await clientNamed('app', null).refresh(first.refresh_token);
      t.equal(anonymous.statusCode, 401);
      t.equal(anonymous.json().error, 'invalid_client');
      t.equal((await app.refresh(first.refresh_token)).statusCode, 200, 'the failed attempts did not burn the token');
    });

    t.test('a public client gets no grace window: an immediate retry is reuse and revokes the family (RFC 9700 §4.14.2)', async (t) => {
      const { firstTokens, clientNamed } = await setup(t, openStore, { REFRESH_REUSE_GRACE: '10' });
      const mobile = clientNamed('mobile', null);
      const first = await firstTokens(mobile, 'read');
      const successor = await mobile.refresh(first.refresh_token);
      t.equal(successor.statusCode, 200);
      expectInvalidGrant(t, await mobile.refresh(first.refresh_token), REUSED);
      expectInvalidGrant(t, await mobile.refresh(successor.json().refresh_token), INVALID);
    });

    t.test('a public client refreshes with its client_id', async (t) => {
      const { firstTokens, clientNamed } = await setup(t, openStore);
      const mobile = clientNamed('mobile', null);
      const first = await firstTokens(mobile, 'read');
      const res = await mobile.refresh(first.refresh_token);
      t.equal(res.statusCode, 200);
      t.equal(res.json().scope, 'read');
    });

    t.test('scope may narrow the access token; the family keeps the original scope', async (t) => {
      const { app, firstTokens } = await setup(t, openStore);
      const first = await firstTokens();
      const narrowed = await app.refresh(first.refresh_token, { scope: 'read' });
      t.equal(narrowed.json().scope, 'read');
      const widenedBack = await app.refresh(narrowed.json().refresh_token, { scope: 'read write' });
      t.equal(widenedBack.statusCode, 200, 'the new refresh token still carries the full grant');
      t.equal(widenedBack.json().scope, 'read write');
      const never = await app.refresh(widenedBack.json().refresh_token, { scope: 'read admin' });
      t.equal(never.statusCode, 400);
      t.same(never.json(), { error: 'invalid_scope', error_description: 'scope not allowed for this client: admin' });
    });

    t.test('garbage and unknown tokens are invalid_grant', async (t) => {
      const { app, firstTokens } = await setup(t, openStore);
      const first = await firstTokens();
      expectInvalidGrant(t, await app.refresh('garbage'), INVALID);
      const [grant] = first.refresh_token.split('.');
      expectInvalidGrant(t, await app.refresh(`${grant}.${'A'.repeat(43)}`), INVALID);
    });
  });
}

refreshSuite(t, 'memory store', async (t) => {
  const store = new MemoryStore();
  t.teardown(() => store.close());
  return store;
});

t.test('real Redis', async (t) => {
  const redis = await startPrivateRedis(t);
  let n = 0;
  refreshSuite(t, 'Redis store', async (t) => {
    const store = new RedisStore({ url: redis.url, keyPrefix: `rt${(n += 1)}:`, commandTimeoutMs: 1000 });
    await store.connect();
    t.teardown(() => store.close());
    return store;
  });
});

t.test('parallel refreshes with one token against real Redis', async (t) => {
  const redis = await startPrivateRedis(t);
  let n = 0;
  const openStore = async (t: Test) => {
    const store = new RedisStore({ url: redis.url, keyPrefix: `par${(n += 1)}:`, commandTimeoutMs: 1000 });
    await store.connect();
    t.teardown(() => store.close());
    return store;
  };

  t.test('two at once (two tabs, or a retry after a dropped response): both get the same successor, the family lives', async (t) => {
    const { app, firstTokens } = await setup(t, openStore, { REFRESH_REUSE_GRACE: '10' });
    const first = await firstTokens();
    const [a, b] = await Promise.all([app.refresh(first.refresh_token), app.refresh(first.refresh_token)]);
    t.same([a.statusCode, b.statusCode], [200, 200]);
    t.same(a.json(), b.json(), 'identical responses');
    t.equal((await app.refresh(a.json().refresh_token)).statusCode, 200, 'the successor works');
  });

  t.test('five at once: one rotation, one grace answer, one reuse that revokes the family, two refused', async (t) => {
    const { app, firstTokens } = await setup(t, openStore, { REFRESH_REUSE_GRACE: '10' });
    const first = await firstTokens();
    const results = await Promise.all(Array.from({ length: 5 }, () => app.refresh(first.refresh_token)));
    const ok = results.filter((r) => r.statusCode === 200);
    t.equal(ok.length, 2);
    t.same(ok[0]?.json(), ok[1]?.json(), 'the rotation and the grace answer carry the same tokens');
    t.same(results.filter((r) => r.statusCode === 400).map((r) => r.json().error_description).sort(), [INVALID, INVALID, REUSED]);
    expectInvalidGrant(t, await app.refresh(ok[0]?.json().refresh_token), INVALID);
  });

  t.test('a public client, two at once, grace configured: one rotation, one reuse, the family is revoked', async (t) => {
    const { firstTokens, clientNamed } = await setup(t, openStore, { REFRESH_REUSE_GRACE: '10' });
    const mobile = clientNamed('mobile', null);
    const first = await firstTokens(mobile, 'read');
    const results = await Promise.all([mobile.refresh(first.refresh_token), mobile.refresh(first.refresh_token)]);
    const ok = results.filter((r) => r.statusCode === 200);
    t.equal(ok.length, 1);
    t.same(results.filter((r) => r.statusCode === 400).map((r) => r.json()), [{ error: 'invalid_grant', error_description: REUSED }]);
    expectInvalidGrant(t, await mobile.refresh(ok[0]?.json().refresh_token), INVALID);
  });

  t.test('without a grace window, parallel use is reuse: exactly one rotation, then the family is revoked', async (t) => {
    const { app, firstTokens } = await setup(t, openStore, { REFRESH_REUSE_GRACE: '0' });
    const first = await firstTokens();
    const results = await Promise.all(Array.from({ length: 4 }, () => app.refresh(first.refresh_token)));
    const ok = results.filter((r) => r.statusCode === 200);
    t.equal(ok.length, 1);
    expectInvalidGrant(t, await app.refresh(ok[0]?.json().refresh_token), INVALID);
  });
});

import t, { type Test } from 'tap';
import { hashClientSecret } from '../src/clients/secret.js';
import { RedisStore } from '../src/store/redis.js';
import type { Store } from '../src/store/types.js';
import { ALICE, AUTHORIZE_CLIENTS, testUsers, WEB_SECRET } from './helpers/authorize-fixtures.js';
import { startPrivateRedis } from './helpers/redis.js';
import { buildTestServer, NO_STORE_JSON } from './helpers/server.js';
import { TokenClient } from './helpers/token-client.js';

const CLIENTS = [
  ...AUTHORIZE_CLIENTS,
  { client_id: 'first-party', client_secret_hash: hashClientSecret(WEB_SECRET), grant_types: ['password', 'refresh_token'], scope: 'read write' },
  { client_id: 'no-refresh', client_secret_hash: hashClientSecret(WEB_SECRET), grant_types: ['password'], scope: 'read' },
  { client_id: 'cli', grant_types: ['password'], scope: 'read', token_endpoint_auth_method: 'none' },
];

async function setup(t: Test, env: Record<string, string> = {}, store?: Store) {
  const server = await buildTestServer(t, { clients: CLIENTS, users: await testUsers(), env, ...(store ? { store } : {}) });
  return { ...server, client: (id: string, secret: string | null = WEB_SECRET, ip?: string) => new TokenClient(server.app, id, secret, ip) };
}

const password = (username: string, pass: string, extra: Record<string, string> = {}) => ({ grant_type: 'password', username, password: pass, ...extra });

t.test('POST /oauth2/token grant_type=password', async (t) => {
  t.test('issues an access token for the user and a refresh token when registered', async (t) => {
    const { client } = await setup(t);
    const res = await client('first-party').token(password(ALICE.username, ALICE.password, { scope: 'read' }));
    t.equal(res.statusCode, 200);
    t.match(res.headers, NO_STORE_JSON);
    const body = res.json();
    t.same(Object.keys(body).sort(), ['access_token', 'expires_in', 'refresh_token', 'scope', 'token_type']);
    const claims = JSON.parse(Buffer.from(body.access_token.split('.')[1], 'base64url').toString());
    t.match(claims, { sub: 'user-alice', client_id: 'first-party', scope: 'read' });
    const noRefresh = await client('no-refresh').token(password(ALICE.username, ALICE.password));
    t.equal(noRefresh.json().refresh_token, undefined);
    t.equal((await client('cli', null).token(password(ALICE.username, ALICE.password))).statusCode, 200, 'a public client with client_id');
  });

  t.test('unknown user and wrong password: the same invalid_grant', async (t) => {
    const { client } = await setup(t);
    for (const [username, pass] of [['alice', 'wrong'], ['nobody', 'wrong']] as const) {
      const res = await client('first-party').token(password(username, pass));
      t.equal(res.statusCode, 400);
      t.same(res.json(), { error: 'invalid_grant', error_description: 'invalid username or password' });
    }
  });

  t.test('only for clients that register it; parameters required', async (t) => {
    const { client } = await setup(t);
    const res = await client('web').token(password(ALICE.username, ALICE.password));
    t.same(res.json(), { error: 'unauthorized_client', error_description: 'this client is not registered for grant_type password' });
    const missing = await client('first-party').token({ grant_type: 'password', username: 'alice' });
    t.same(missing.json(), { error: 'invalid_request', error_description: 'parameter "password" is required' });
    const anonymous = await client('first-party', null).token(password(ALICE.username, ALICE.password));
    t.equal(anonymous.statusCode, 401, 'a confidential client must authenticate');
  });

  t.test('failures per username are limited: 429 with Retry-After and an OAuth error body', async (t) => {
    const { client } = await setup(t, { LOGIN_MAX_FAILURES: '3', LOGIN_FAILURE_WINDOW: '300' });
    for (let i = 0; i < 3; i += 1) await client('first-party', WEB_SECRET, `198.51.100.${i}`).token(password('alice', `wrong-${i}`));
    const res = await client('no-refresh', WEB_SECRET, '198.51.100.200').token(password(ALICE.username, ALICE.password));
    t.equal(res.statusCode, 429, 'even the right password, from another client and address');
    t.equal(res.headers['retry-after'], '300');
    t.match(res.headers, NO_STORE_JSON);
    t.same(res.json(), { error: 'invalid_grant', error_description: 'too many failed attempts: retry after 300 seconds' });
    t.equal((await client('first-party').token(password('bob', 'bob-password-1'))).statusCode, 200, 'other users are unaffected');
  });

  t.test('failures per address are limited', async (t) => {
    const { client } = await setup(t, { LOGIN_MAX_FAILURES_PER_IP: '2' });
    const attacker = client('first-party', WEB_SECRET, '192.0.2.66');
    for (const username of ['u1', 'u2']) await attacker.token(password(username, 'x'));
    t.equal((await attacker.token(password(ALICE.username, ALICE.password))).statusCode, 429);
    t.equal((await client('first-party', WEB_SECRET, '192.0.2.67').token(password(ALICE.username, ALICE.password))).statusCode, 200, 'another address is unaffected');
  });
});

t.test('password-grant limits are shared through Redis (two servers, one store)', async (t) => {
  const redis = await startPrivateRedis(t);
  const openStore = async () => {
    const store = new RedisStore({ url: redis.url, keyPrefix: 'shared:', commandTimeoutMs: 1000 });
    await store.connect();
    t.teardown(() => store.close());
    return store;
  };
  const a = await setup(t, { LOGIN_MAX_FAILURES: '2' }, await openStore());
  const b = await setup(t, { LOGIN_MAX_FAILURES: '2' }, await openStore());
  await a.client('first-party').token(password('alice', 'wrong-1'));
  await b.client('first-party').token(password('alice', 'wrong-2'));
  t.equal((await a.client('first-party').token(password(ALICE.username, ALICE.password))).statusCode, 429);
});

import { Writable } from 'node:stream';
import t from 'tap';
import { STORE_RETRY_AFTER_SECONDS } from '../../src/http/oauth-reply.js';
import { ALICE, testUsers, WEB_SECRET } from '../helpers/authorize-fixtures.js';
import { expectOAuthError } from '../helpers/oauth-error.js';
import { startPrivateRedis } from '../../harness/redis.js';
import { buildTestServer } from '../helpers/server.js';
import { redisStore } from '../helpers/redis-stores.js';
import { TokenClient } from '../helpers/token-client.js';
import { CLIENTS, tokenStatusSuite } from '../suites/token-status.js';

tokenStatusSuite(t, redisStore);

t.test('Redis down: revocation and introspection answer 503 with Retry-After (RFC 7009 §2.2.1)', async (t) => {
  const redis = await startPrivateRedis(t);
  const lines: string[] = [];
  const logs = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const store = await redisStore(t, { redis, commandTimeoutMs: 300 });
  const server = await buildTestServer(t, { clients: CLIENTS, users: testUsers(), store, logger: { level: 'info', stream: logs } });
  const app = new TokenClient(server.app, 'app', WEB_SECRET);
  const rs = new TokenClient(server.app, 'rs', WEB_SECRET);
  const { access_token, refresh_token } = (
    await app.token({ grant_type: 'password', username: ALICE.username, password: ALICE.password })
  ).json();
  await redis.kill();

  const unavailable = {
    status: 503,
    error: 'temporarily_unavailable',
    description: `the token store is unavailable: retry after ${STORE_RETRY_AFTER_SECONDS} seconds`,
  };
  const calls = [
    ['revoke a refresh token', () => app.revoke(refresh_token)],
    ['revoke an access token', () => app.revoke(access_token)],
    ['introspect a refresh token', () => rs.post('/oauth2/introspect', { token: refresh_token })],
    ['introspect an access token', () => rs.post('/oauth2/introspect', { token: access_token })],
  ] as const;
  for (const [what, call] of calls) {
    await t.test(what, async (t) =>
      expectOAuthError(t, await call(), { ...unavailable, headers: { 'retry-after': String(STORE_RETRY_AFTER_SECONDS) } }),
    );
  }
  t.equal(STORE_RETRY_AFTER_SECONDS, 5, 'the Retry-After the README documents');
  const garbage = await rs.post('/oauth2/introspect', { token: 'not-a-token' });
  t.same([garbage.statusCode, garbage.json()], [200, { active: false }], 'a token that needs no store lookup is still answered');

  const refresh = await app.refresh(refresh_token);
  expectOAuthError(t, refresh, {
    status: 500,
    error: 'server_error',
    description: 'the authorization server encountered an unexpected condition',
  });

  const unavailableLogs = lines.filter((line) => line.includes('store unavailable: answered 503'));
  t.equal(unavailableLogs.length, 4, 'each 503 is logged once');
  for (const line of lines) {
    t.notOk(line.includes(refresh_token) || line.includes(access_token) || line.includes(WEB_SECRET), 'no token or secret in the logs');
  }
});

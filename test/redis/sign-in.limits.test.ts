import t from 'tap';
import { ALICE } from '../helpers/authorize-fixtures.js';
import { redirectParams } from '../helpers/browser-flow.js';
import { expectOAuthError } from '../helpers/oauth-error.js';
import { startPrivateRedis } from '../../harness/redis.js';
import { ISSUER, SESSION_COOKIE } from '../helpers/server.js';
import { redisStore } from '../helpers/redis-stores.js';
import { endpointLimitsSuite, setup } from '../suites/sign-in-limits.js';

endpointLimitsSuite(t, 'Redis store', redisStore);

t.test('Redis down: no sign-in, a clear error, no password checked', async (t) => {
  const down = await startPrivateRedis(t);
  const { passwordGrant, loginForm, counting } = await setup(t, { store: await redisStore(t, { redis: down, commandTimeoutMs: 300 }) });
  const form = await loginForm('192.0.2.1');
  await down.kill();
  const token = await passwordGrant(ALICE.username, ALICE.password, '192.0.2.1');
  expectOAuthError(t, token, {
    status: 500,
    error: 'server_error',
    description: 'the authorization server encountered an unexpected condition',
  });
  const login = await form.submit(ALICE.username, ALICE.password);
  t.equal(login.statusCode, 303);
  t.same(redirectParams(login.headers.location as string), {
    error: 'temporarily_unavailable',
    error_description: 'the authorization server is temporarily unavailable, try again later',
    state: 'st-1',
    iss: ISSUER,
  });
  t.equal(form.browser.cookie(SESSION_COOKIE), undefined);
  t.equal(counting.verifications, 0);
});

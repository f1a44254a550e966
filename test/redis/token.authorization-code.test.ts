import t from 'tap';
import { WEB_REDIRECT } from '../helpers/authorize-fixtures.js';
import { expectOAuthError } from '../helpers/oauth-error.js';
import { startPrivateRedis } from '../../harness/redis.js';
import { redisStore } from '../helpers/redis-stores.js';
import { parallelRedemptionSuite, setup } from '../suites/authorization-code.js';

parallelRedemptionSuite(t, 'real Redis', redisStore);

t.test('Redis down at redemption: server_error, no token', async (t) => {
  const redis = await startPrivateRedis(t);
  const { verifier, newCode, redeem } = await setup(t, (t) => redisStore(t, { redis, commandTimeoutMs: 300 }));
  const code = await newCode();
  await redis.kill();
  const res = await redeem({ code, redirect_uri: WEB_REDIRECT, code_verifier: verifier });
  expectOAuthError(t, res, {
    status: 500,
    error: 'server_error',
    description: 'the authorization server encountered an unexpected condition',
  });
});

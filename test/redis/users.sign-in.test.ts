import t from 'tap';
import { StoreUnavailableError } from '../../src/errors/index.js';
import { ALICE } from '../helpers/authorize-fixtures.js';
import { startPrivateRedis } from '../../harness/redis.js';
import { redisStore } from '../helpers/redis-stores.js';
import { signInLimitsSuite, signInService } from '../suites/sign-in-service.js';

signInLimitsSuite(t, 'RedisStore', redisStore);

t.test('Redis down: refused fast, nothing checked', async (t) => {
  const redis = await startPrivateRedis(t);
  const { signIn, counting } = signInService((await redisStore(t, { redis, commandTimeoutMs: 500 })).store.attempts);
  await redis.kill();
  const started = Date.now();
  await t.rejects(signIn.attempt(ALICE.username, ALICE.password, '192.0.2.1'), StoreUnavailableError);
  t.ok(Date.now() - started < 1000, `refused in ${Date.now() - started} ms`);
  t.equal(counting.verifications, 0);
});

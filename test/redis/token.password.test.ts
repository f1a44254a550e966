import t from 'tap';
import { ALICE } from '../helpers/authorize-fixtures.js';
import { redisStore } from '../helpers/redis-stores.js';
import { password, setup } from '../suites/password-grant.js';

t.test('password-grant limits are shared through Redis (two servers, one store)', async (t) => {
  const first = await redisStore(t);
  const a = await setup(t, { LOGIN_MAX_FAILURES: '2' }, first);
  const b = await setup(t, { LOGIN_MAX_FAILURES: '2' }, await redisStore(t, { keyPrefix: first.keyPrefix }));
  await a.client('first-party').token(password('alice', 'wrong-1'));
  await b.client('first-party').token(password('alice', 'wrong-2'));
  t.equal((await a.client('first-party').token(password(ALICE.username, ALICE.password))).statusCode, 429);
});

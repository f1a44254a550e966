import { Redis } from 'ioredis';
import t, { type Test } from 'tap';
import { type PrivateRedis, startPrivateRedis } from '../../harness/redis.js';
import { buildTestServer } from '../helpers/server.js';
import { redisStore } from '../helpers/redis-stores.js';

t.test('Redis down: 503 fast, while /healthz stays 200', async (t) => {
  const redis = await startPrivateRedis(t);
  const { app } = await buildTestServer(t, { store: await redisStore(t, { redis, commandTimeoutMs: 300 }) });
  t.equal((await app.inject({ url: '/readyz' })).statusCode, 200);
  await redis.kill();
  const started = Date.now();
  const ready = await app.inject({ url: '/readyz' });
  t.equal(ready.statusCode, 503);
  t.same(ready.json(), {
    status: 'unavailable',
    checks: { signing_key: true, store: false, signing_algorithms: { ES256: true, RS256: false } },
  });
  t.ok(Date.now() - started < 1000, 'answers fast');
  t.equal((await app.inject({ url: '/healthz' })).statusCode, 200);
});

t.test('Redis answers but refuses writes: 503, and ready again once it accepts them', async (t) => {
  const unavailable = {
    status: 'unavailable',
    checks: { signing_key: true, store: false, signing_algorithms: { ES256: true, RS256: false } },
  };
  const readyWith = async (t: Test, redis: PrivateRedis) => {
    const opened = await redisStore(t, { redis, commandTimeoutMs: 300 });
    const admin = new Redis(redis.url);
    t.teardown(() => admin.quit());
    const { app } = await buildTestServer(t, { store: opened });
    t.equal((await app.inject({ url: '/readyz' })).statusCode, 200, 'ready while Redis accepts writes');
    return { app, store: opened.store, keyPrefix: opened.keyPrefix, admin };
  };

  t.test('out of memory (maxmemory reached, noeviction)', async (t) => {
    const { app, store, admin } = await readyWith(t, await startPrivateRedis(t));
    await admin.config('SET', 'maxmemory-policy', 'noeviction');
    await admin.config('SET', 'maxmemory', '1');
    t.equal(await admin.ping(), 'PONG', 'Redis still answers PING');
    const ready = await app.inject({ url: '/readyz' });
    t.equal(ready.statusCode, 503);
    t.same(ready.json(), unavailable);
    await t.rejects(store.ping(), { name: 'StoreUnavailableError', message: /OOM/ });
    await admin.config('SET', 'maxmemory', '0');
    t.equal((await app.inject({ url: '/readyz' })).statusCode, 200);
  });

  t.test('a read-only replica', async (t) => {
    const primary = await startPrivateRedis(t);
    const { app, store, admin } = await readyWith(t, await startPrivateRedis(t));
    await admin.replicaof('127.0.0.1', primary.port);
    t.equal(await admin.ping(), 'PONG', 'Redis still answers PING');
    const ready = await app.inject({ url: '/readyz' });
    t.equal(ready.statusCode, 503);
    t.same(ready.json(), unavailable);
    await t.rejects(store.ping(), { name: 'StoreUnavailableError', message: /READONLY/ });
    await admin.replicaof('NO', 'ONE');
    t.equal((await app.inject({ url: '/readyz' })).statusCode, 200);
  });

  t.test('the probe is one short-lived key under its own hash tag', async (t) => {
    const redis = await startPrivateRedis(t);
    const { admin, keyPrefix } = await readyWith(t, redis);
    const keys = await admin.keys(`${keyPrefix}*`);
    t.equal(keys.length, 1);
    t.equal(keys[0]?.slice(0, keyPrefix.length), keyPrefix);
    t.match(keys[0]?.slice(keyPrefix.length), /^\{readyz\}:[0-9a-f]{16}$/);
    const ttl = await admin.pttl(keys[0] as string);
    t.ok(ttl > 0 && ttl <= 5000, `TTL ${ttl} ms`);
  });
});

import t from 'tap';
import { StoreUnavailableError } from '../../src/errors/index.js';
import { RedisStore } from '../../src/store/redis.js';
import { mintOpaqueToken, newGrantId } from '../../src/tokens/opaque.js';
import { startPrivateRedis } from '../../harness/redis.js';
import { redisStore } from '../helpers/redis-stores.js';
import { RECORD, REDEEM } from '../suites/store.contract.js';

t.test('RedisStore fails fast when Redis is down, and nothing is recorded', async (t) => {
  t.test('killed server: commands reject at once with StoreUnavailableError', async (t) => {
    const redis = await startPrivateRedis(t);
    const { store } = await redisStore(t, { redis, commandTimeoutMs: 500 });
    await redis.kill();
    const started = Date.now();
    await t.rejects(store.saveAuthorizationCode(mintOpaqueToken(newGrantId()).ref, RECORD, 60), StoreUnavailableError);
    await t.rejects(store.redeemAuthorizationCode(mintOpaqueToken(newGrantId()).ref, REDEEM), StoreUnavailableError);
    await t.rejects(store.ping(), StoreUnavailableError);
    t.ok(Date.now() - started < 1500, `failed in ${Date.now() - started} ms`);
  });

  t.test('hung server: each command gives up after REDIS_COMMAND_TIMEOUT_MS', async (t) => {
    const redis = await startPrivateRedis(t);
    const { store } = await redisStore(t, { redis, commandTimeoutMs: 200 });
    redis.freeze();
    t.teardown(() => redis.thaw());
    const started = Date.now();
    await t.rejects(store.redeemAuthorizationCode(mintOpaqueToken(newGrantId()).ref, REDEEM), StoreUnavailableError);
    const elapsed = Date.now() - started;
    t.ok(elapsed >= 150 && elapsed < 1000, `gave up after ${elapsed} ms`);
  });

  t.test('unreachable at start, whatever the topology: connect rejects with StoreUnavailableError in bounded time', async (t) => {
    const redis = await startPrivateRedis(t);
    await redis.kill();
    const dead = { host: '127.0.0.1', port: redis.port };
    for (const topology of [
      redis.topology,
      { kind: 'cluster' as const, nodes: [dead] },
      { kind: 'sentinel' as const, sentinels: [dead], name: 'mymaster' },
    ]) {
      const store = new RedisStore({ connection: { topology, commandTimeoutMs: 200 }, keyPrefix: 'never:' });
      t.teardown(() => store.close());
      const started = Date.now();
      await t.rejects(store.connect(), StoreUnavailableError, topology.kind);
      t.ok(Date.now() - started <= 3500, `${topology.kind}: gave up after ${Date.now() - started} ms`);
      await t.rejects(store.ping(), StoreUnavailableError, `${topology.kind}: not ready`);
    }
  });
});

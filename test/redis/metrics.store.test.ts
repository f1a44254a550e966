import t from 'tap';
import { StoreUnavailableError } from '../../src/errors/index.js';
import { ServerMetrics } from '../../src/metrics/server-metrics.js';
import { mintOpaqueToken, newGrantId } from '../../src/tokens/opaque.js';
import { metricsListener, scrape } from '../helpers/metrics.js';
import { startPrivateRedis } from '../../harness/redis.js';
import { redisStore } from '../helpers/redis-stores.js';
import { RECORD, REDEEM } from '../suites/store.contract.js';

function metricsWithoutKeys(): ServerMetrics {
  return new ServerMetrics({
    keys: { signingKeyAt: () => undefined, nextSigningKeyAfter: () => undefined },
    clock: Date.now,
    processMetrics: false,
  });
}

t.test('store operations: latency by operation, failures and timeouts counted', async (t) => {
  const redis = await startPrivateRedis(t);
  const metrics = metricsWithoutKeys();
  const { store } = await redisStore(t, { redis, commandTimeoutMs: 200, observer: metrics });
  const code = mintOpaqueToken(newGrantId());
  await store.saveAuthorizationCode(code.ref, RECORD, 60);
  t.match(await store.redeemAuthorizationCode(code.ref, REDEEM), { status: 'consumed' });
  t.match(await store.redeemAuthorizationCode(code.ref, REDEEM), { status: 'replayed' });

  redis.freeze();
  t.teardown(() => redis.thaw());
  await t.rejects(store.redeemAuthorizationCode(mintOpaqueToken(newGrantId()).ref, REDEEM), StoreUnavailableError);
  redis.thaw();

  const s = await scrape(await metricsListener(t, metrics));
  t.equal(s.value('oauth2_store_command_duration_seconds_count', { operation: 'connect' }), 1);
  t.equal(s.value('oauth2_store_command_duration_seconds_count', { operation: 'create code' }), 1);
  t.equal(s.value('oauth2_store_command_duration_seconds_count', { operation: 'consume code' }), 3, 'the timed-out one too');
  t.equal(s.value('oauth2_store_command_errors_total', { operation: 'consume code' }), 1);
  t.equal(s.value('oauth2_store_command_errors_total', { operation: 'create code' }), undefined, 'no failure, no sample');
  const slowest = s.value('oauth2_store_command_duration_seconds_sum', { operation: 'consume code' }) as number;
  t.ok(slowest >= 0.15 && slowest < 1, `the timeout is in the sum (${slowest} s)`);
  t.equal(
    s.value('oauth2_store_command_duration_seconds_bucket', { operation: 'consume code', le: '0.1' }),
    2,
    'two fast, one at the timeout',
  );
});

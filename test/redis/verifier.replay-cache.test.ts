import { createHash } from 'node:crypto';
import { Redis } from 'ioredis';
import { redisReplayCache } from '@oauth2-token-service/verifier';
import t from 'tap';
import { startPrivateRedis } from '../../harness/redis.js';

t.test("the verifier's Redis replay cache on a real Redis, through an ioredis client", async (t) => {
  const redis = await startPrivateRedis(t);
  const client = new Redis(redis.url, { lazyConnect: true });
  await client.connect();
  t.teardown(() => client.quit());
  const cache = redisReplayCache(client, { keyPrefix: 'rs-test:' });

  t.test('of 30 concurrent presentations of one proof, exactly one is accepted', async (t) => {
    const outcomes = await Promise.all(Array.from({ length: 30 }, () => cache.rememberProof('JKT-a', 'jti-1', 121)));
    t.equal(outcomes.filter(Boolean).length, 1);
  });

  t.test('one hash-tagged key per proof, expiring after the window, never holding the jti', async (t) => {
    t.equal(await cache.rememberProof('JKT-b', 'secret-looking-jti', 121), true);
    const keys = await client.keys('rs-test:{JKT-b}:*');
    t.equal(keys.length, 1);
    t.match(keys[0], /^rs-test:\{JKT-b\}:[A-Za-z0-9_-]{43}$/);
    // The jti's SHA-256, as every release named it: an upgraded resource server still sees the proofs the last one took.
    t.equal(keys[0], `rs-test:{JKT-b}:${createHash('sha256').update('secret-looking-jti').digest('base64url')}`);
    t.notMatch(keys[0], 'secret-looking-jti');
    const ttl = await client.pttl(keys[0] as string);
    t.ok(ttl > 120_000 && ttl <= 121_000, `PTTL ${ttl} ms covers the whole window`);
  });
});

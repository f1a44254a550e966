import { createHash } from 'node:crypto';
import { Redis } from 'ioredis';
import t, { type Test } from 'tap';
import { ATTEMPT_IN_FLIGHT_SECONDS } from '../../src/store/types.js';
import { mintOpaqueToken, newGrantId } from '../../src/tokens/opaque.js';
import { type StandaloneTestStore, redisStore } from '../helpers/stores.js';
import { RECORD, REDEEM, storeContract } from '../suites/store.contract.js';
import { grantStoreContract } from '../suites/store.grants.contract.js';
import { registrationStoreContract } from '../suites/store.registrations.contract.js';

storeContract(t, 'RedisStore', redisStore);
grantStoreContract(t, 'RedisStore', redisStore);
registrationStoreContract(t, 'RedisStore', redisStore);

/** A client of the same redis-server that reads what the store wrote. */
function inspect(t: Test, { redis }: StandaloneTestStore): Redis {
  const inspector = new Redis(redis.url);
  t.teardown(() => inspector.quit());
  return inspector;
}

t.test('RedisStore key layout', async (t) => {
  t.test('attempt counters: digest keys, each its own hash tag (its in-flight count beside it), never without a TTL', async (t) => {
    const opened = await redisStore(t);
    const { store, keyPrefix } = opened;
    const inspector = inspect(t, opened);
    const keyOf = (counter: string) => `${keyPrefix}attempts:{${createHash('sha256').update(counter).digest('base64url')}}`;
    await store.attempts.reserveAttempt('username:alice', 5, 60);
    await store.attempts.reserveAttempt('address:192.0.2.1', 5, 60);
    const keys = await inspector.keys(`${keyPrefix}*`);
    const alice = keyOf('username:alice');
    const address = keyOf('address:192.0.2.1');
    t.same(
      keys.sort(),
      [alice, `${alice}:checking`, address, `${address}:checking`].sort(),
      'a SHA-256 digest as the hash tag: no username or address in clear',
    );
    for (const key of [alice, address]) {
      const ttl = await inspector.pttl(key);
      t.ok(ttl > 55_000 && ttl <= 60_000, `the window: TTL ${ttl} ms`);
    }
    for (const key of [`${alice}:checking`, `${address}:checking`]) {
      const ttl = await inspector.pttl(key);
      t.ok(ttl > ATTEMPT_IN_FLIGHT_SECONDS * 1000 - 5000 && ttl <= ATTEMPT_IN_FLIGHT_SECONDS * 1000, `in flight: TTL ${ttl} ms`);
    }
    await store.attempts.releaseAttempt('username:alice');
    await store.attempts.releaseAttempt('username:alice');
    await store.attempts.releaseAttempt('username:nobody');
    await store.attempts.keepAttempt('address:192.0.2.1');
    await store.attempts.keepAttempt('address:192.0.2.1');
    await store.attempts.clearAttempts('username:nobody');
    t.same(
      await inspector.keys(`${keyPrefix}*`),
      [address],
      'the last release deletes the counter, the last settled attempt its in-flight count; settling creates none',
    );
  });

  t.test('keys are digests under the grant hash tag, every one with a TTL', async (t) => {
    const opened = await redisStore(t);
    const { store, keyPrefix } = opened;
    const inspector = inspect(t, opened);
    const grantId = newGrantId();
    const code = mintOpaqueToken(grantId);
    await store.saveAuthorizationCode(code.ref, RECORD, 60);
    const keys = await inspector.keys(`${keyPrefix}*`);
    t.same(keys, [`${keyPrefix}{${grantId}}:code:${code.ref.digest}`]);
    t.notMatch(keys[0], code.value.split('.')[1] as string, 'the secret part of the code is not in the key');
    const ttl = await inspector.pttl(keys[0] as string);
    t.ok(ttl > 55_000 && ttl <= 60_000, `TTL ${ttl} ms`);
    const stored = JSON.stringify(await inspector.hgetall(keys[0] as string));
    t.notMatch(stored, code.value, 'the code value is not stored');
    await store.redeemAuthorizationCode(code.ref, REDEEM);
    t.ok((await inspector.pttl(keys[0] as string)) > 55_000, 'the tombstone keeps the original TTL');
  });
});

t.test('advance (the test clock) ages only the keys of its own store', async (t) => {
  const aged = await redisStore(t);
  const other = await redisStore(t);
  const inspector = inspect(t, aged);
  await aged.store.denylistAccessToken('short', 2);
  await aged.store.denylistAccessToken('long', 60);
  await other.store.denylistAccessToken('short', 2);
  await aged.advance(2);
  t.same(await inspector.keys(`${aged.keyPrefix}jti:*`), [`${aged.keyPrefix}jti:long`], 'a key with nothing left is deleted');
  const left = await inspector.pttl(`${aged.keyPrefix}jti:long`);
  t.ok(left > 57_000 && left <= 58_000, `the others are shortened by as much (${left} ms left)`);
  t.equal(await other.store.isAccessTokenDenylisted('short'), true, 'another prefix is untouched');
  await inspector.set(`${aged.keyPrefix}forever`, '1');
  await t.rejects(aged.advance(1), /key without a TTL/, 'a key without a TTL is reported');
});

t.test('grant indexes and consents: per-user and per-client hash tags, TTL = the latest expiry', async (t) => {
  const opened = await redisStore(t);
  const { store, keyPrefix, clock } = opened;
  const inspector = inspect(t, opened);
  const tag = (value: string) => createHash('sha256').update(value).digest('base64url');
  await store.grantIndex.indexGrant({ grantId: newGrantId(), sub: 'alice', clientId: 'web', expiresAt: clock.now + 60_000 });
  await store.grantIndex.indexGrant({ grantId: newGrantId(), sub: 'alice', clientId: 'web', expiresAt: clock.now + 120_000 });
  await store.consents.rememberConsent('alice', 'web', { scope: ['read'], resources: [] }, 300);
  const keys = (await inspector.keys(`${keyPrefix}*`)).sort();
  t.same(
    keys,
    [`${keyPrefix}{client:${tag('web')}}:grants`, `${keyPrefix}{sub:${tag('alice')}}:consents`, `${keyPrefix}{sub:${tag('alice')}}:grants`],
    'digests as hash tags: no sub or client id in clear',
  );
  for (const [key, expected] of [
    [keys[0], 120_000],
    [keys[2], 120_000],
    [keys[1], 300_000],
  ] as const) {
    const ttl = await inspector.pttl(key as string);
    t.ok(ttl > expected - 5000 && ttl <= expected, `${key}: TTL ${ttl} ms`);
  }
  await opened.advance(121);
  t.same((await inspector.keys(`${keyPrefix}*grants`)).sort(), [], 'an index dies with its last grant');
});

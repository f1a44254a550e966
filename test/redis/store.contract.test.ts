import { createHash } from 'node:crypto';
import { Redis } from 'ioredis';
import t, { type Test } from 'tap';
import { UNLIST_UNCHANGED } from '../../src/store/lua.js';
import { FORGET_BATCH } from '../../src/store/redis-grants.js';
import { ATTEMPT_IN_FLIGHT_SECONDS } from '../../src/store/types.js';
import { mintOpaqueToken, newGrantId } from '../../src/tokens/opaque.js';
import { type StandaloneTestStore, redisStore } from '../helpers/redis-stores.js';
import { clientAssertionReplayContract } from '../suites/store.client-assertions.contract.js';
import { RECORD, REDEEM, storeContract } from '../suites/store.contract.js';
import { DEVICE_START, deviceCodeStoreContract } from '../suites/store.devices.contract.js';
import { grantStoreContract } from '../suites/store.grants.contract.js';
import { registrationStoreContract } from '../suites/store.registrations.contract.js';
import { upstreamStoreContract } from '../suites/store.upstream.contract.js';
import { entryStoreContract, listen } from '../suites/store.entries.contract.js';

storeContract(t, 'RedisStore', redisStore);
grantStoreContract(t, 'RedisStore', redisStore);
upstreamStoreContract(t, 'RedisStore', redisStore);
registrationStoreContract(t, 'RedisStore', redisStore);
clientAssertionReplayContract(t, 'RedisStore', redisStore);
deviceCodeStoreContract(t, 'RedisStore', redisStore);
entryStoreContract(t, 'RedisStore', redisStore);

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

  t.test('client assertions: the digest of the client id as the hash tag, the digest of the jti, the TTL asked for', async (t) => {
    const opened = await redisStore(t);
    const { store, keyPrefix } = opened;
    const inspector = inspect(t, opened);
    const digest = (value: string) => createHash('sha256').update(value).digest('base64url');
    await store.rememberClientAssertion('https://client.example/{meta}', 'jti-{1}', 90);
    const key = `${keyPrefix}assertion:{${digest('https://client.example/{meta}')}}:${digest('jti-{1}')}`;
    t.same(await inspector.keys(`${keyPrefix}*`), [key], 'no client id or jti in clear, no brace of theirs in the key');
    const ttl = await inspector.pttl(key);
    t.ok(ttl > 85_000 && ttl <= 90_000, `TTL ${ttl} ms`);
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

t.test("upstream sign-ins, profiles and tokens: their own hash tags (a grant's under the grant's), every key with a TTL", async (t) => {
  const opened = await redisStore(t);
  const { store, keyPrefix } = opened;
  const inspector = inspect(t, opened);
  const grantId = newGrantId();
  const subTag = createHash('sha256').update('fed_someone').digest('base64url');
  await store.upstream.saveUpstreamSignIn('c3RhdGUtZGlnZXN0', 'YmluZGluZw', 'sealed-sign-in', 600);
  await store.upstream.saveFederatedProfile('fed_someone', { email: 'someone@example.com' }, 900, 'corp');
  await store.upstream.saveUpstreamTokens({ sessionId: 'c2Vzc2lvbg' }, 'sealed-session', 300);
  await store.upstream.saveUpstreamTokens({ grantId }, 'sealed-grant', 1200);
  const expected = {
    [`${keyPrefix}upstream:{c3RhdGUtZGlnZXN0}`]: 600_000,
    [`${keyPrefix}{sub:${subTag}}:profile`]: 900_000,
    // The listing of federated users (the admin API's): as long as its latest profile.
    [`${keyPrefix}{federated}:ids`]: 900_000,
    [`${keyPrefix}{federated}:expiries`]: 900_000,
    [`${keyPrefix}{federated}:details`]: 900_000,
    [`${keyPrefix}session:{c2Vzc2lvbg}:upstream`]: 300_000,
    [`${keyPrefix}{${grantId}}:upstream`]: 1_200_000,
  };
  t.same((await inspector.keys(`${keyPrefix}*`)).sort(), Object.keys(expected).sort());
  for (const [key, ttl] of Object.entries(expected)) {
    const left = await inspector.pttl(key);
    t.ok(left > ttl - 5000 && left <= ttl, `${key}: TTL ${left} ms`);
  }
});

t.test('an upstream sign-in is `<binding>.<sealed>`; one written before bindings (a rolling upgrade) is taken as before', async (t) => {
  const opened = await redisStore(t);
  const { store, keyPrefix } = opened;
  const inspector = inspect(t, opened);
  await store.upstream.saveUpstreamSignIn('bmV3', 'YmluZGluZw', 'c2VhbGVk', 600);
  t.equal(await inspector.get(`${keyPrefix}upstream:{bmV3}`), 'YmluZGluZw.c2VhbGVk');
  await inspector.set(`${keyPrefix}upstream:{b2xk}`, 'c2VhbGVkLW9sZA', 'PX', 600_000);
  t.same(
    await store.upstream.takeUpstreamSignIn('b2xk', 'YmluZGluZw'),
    { sealed: 'c2VhbGVkLW9sZA' },
    'its sealed binding is checked once opened',
  );
  t.equal(await inspector.exists(`${keyPrefix}upstream:{b2xk}`), 0);
});

t.test("device authorizations: the record under its grant's tag, the user code's digest in its own slot, TTLs", async (t) => {
  const opened = await redisStore(t);
  const { store, keyPrefix } = opened;
  const inspector = inspect(t, opened);
  const device = mintOpaqueToken(newGrantId());
  await store.deviceCodes.startDeviceAuthorization(device.ref, 'dXNlci1jb2Rl', DEVICE_START);
  const record = `${keyPrefix}{${device.ref.grantId}}:device:${device.ref.digest}`;
  const userCode = `${keyPrefix}device-user:{dXNlci1jb2Rl}`;
  t.same((await inspector.keys(`${keyPrefix}*`)).sort(), [record, userCode].sort());
  t.equal(await inspector.get(userCode), `${device.ref.grantId}.${device.ref.digest}`, 'the user code names the record');
  for (const [key, ttl] of [
    [userCode, 600_000],
    [record, 1_200_000],
  ] as const) {
    const left = await inspector.pttl(key);
    t.ok(left > ttl - 5000 && left <= ttl, `${key}: TTL ${left} ms`);
  }
  t.notMatch(JSON.stringify(await inspector.hgetall(record)), device.value.split('.')[1] as string, 'no device code stored');
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

t.test('grant indexes and consents: per-user, per-client and per-grant hash tags, TTL = the latest expiry', async (t) => {
  const opened = await redisStore(t);
  const { store, keyPrefix, clock } = opened;
  const inspector = inspect(t, opened);
  const tag = (value: string) => createHash('sha256').update(value).digest('base64url');
  const [first, second] = [newGrantId(), newGrantId()];
  await store.grantIndex.indexGrant({ grantId: first, sub: 'alice', clientId: 'web', expiresAt: clock.now + 60_000 });
  await store.grantIndex.indexGrant({ grantId: second, sub: 'alice', clientId: 'web', expiresAt: clock.now + 120_000 });
  await store.consents.rememberConsent('alice', 'web', { scope: ['read'], audiences: [] }, 300);
  const expected: [string, number][] = [
    [`${keyPrefix}{client:${tag('web')}}:consents`, 300_000],
    [`${keyPrefix}{client:${tag('web')}}:grants`, 120_000],
    [`${keyPrefix}{sub:${tag('alice')}}:consents`, 300_000],
    [`${keyPrefix}{sub:${tag('alice')}}:grants`, 120_000],
    [`${keyPrefix}{${first}}:indexed`, 60_000],
    [`${keyPrefix}{${second}}:indexed`, 120_000],
  ];
  t.same(
    (await inspector.keys(`${keyPrefix}*`)).sort(),
    expected.map(([key]) => key).sort(),
    'digests as hash tags: no sub or client id in clear; the grant known by id in its own slot',
  );
  for (const [key, ttl] of expected) {
    const left = await inspector.pttl(key);
    t.ok(left > ttl - 5000 && left <= ttl, `${key}: TTL ${left} ms`);
  }
  await opened.advance(121);
  t.same(
    (await inspector.keys(`${keyPrefix}*`)).sort(),
    expected
      .filter(([, ttl]) => ttl > 121_000)
      .map(([key]) => key)
      .sort(),
  );
  t.same(await inspector.zrange(`${keyPrefix}{client:${tag('web')}}:consents`, 0, -1), ['alice'], 'the client lists its consenting users');
  await store.consents.forgetConsentsToClient('web');
  t.same(await inspector.keys(`${keyPrefix}*`), [], "forgetting a client's consents leaves no key behind");
});

t.test("forgetting a client's consents reaches every listed user, batch after batch", async (t) => {
  const opened = await redisStore(t);
  const { store, keyPrefix } = opened;
  const inspector = inspect(t, opened);
  const subs = Array.from({ length: FORGET_BATCH * 2 + 1 }, (_, i) => `user-${i}`);
  await Promise.all(subs.map((sub) => store.consents.rememberConsent(sub, 'web', { scope: ['read'], audiences: [] }, 60)));
  await store.consents.forgetConsentsToClient('web');
  t.same(await inspector.keys(`${keyPrefix}*`), [], 'every consent and the index gone');
});

t.test('UNLIST_UNCHANGED drops the entries read, but not one written again since (its expiry raised)', async (t) => {
  const opened = await redisStore(t);
  const inspector = inspect(t, opened);
  const key = `${opened.keyPrefix}{client:x}:consents`;
  await inspector.zadd(key, 1000, 'alice', 2000, 'bob', 5000, 'carol');
  await inspector.pexpire(key, 60_000);
  // Read as alice 1000, bob 1000 (bob consented again meanwhile), carol 5000.
  await inspector.eval(UNLIST_UNCHANGED, 1, key, 'alice', 1000, 'bob', 1000, 'carol', 5000);
  t.same(await inspector.zrange(key, 0, -1), ['bob']);
  await inspector.eval(UNLIST_UNCHANGED, 1, key, 'bob', 2000);
  t.equal(await inspector.exists(key), 0, 'the last entry gone: the key too');
});

t.test('a consent written before consents named their audiences is no consent (the user is asked again)', async (t) => {
  const opened = await redisStore(t);
  const { store, keyPrefix, clock } = opened;
  const raw = await opened.raw();
  const key = `${keyPrefix}{sub:${createHash('sha256').update('bob').digest('base64url')}}:consents`;
  // As the store wrote it before: no audiences (a resource approved, or none: ACCESS_TOKEN_AUDIENCE unrecorded).
  await raw.hset(key, 'web', `${clock.now + 600_000} ${JSON.stringify({ scope: ['read'], resources: ['https://api-a.example.com/'] })}`);
  await raw.hset(key, 'cli', `${clock.now + 600_000} ${JSON.stringify({ scope: ['read'], resources: [] })}`);
  await raw.pexpire(key, 600_000);
  t.equal(await store.consents.findConsent('bob', 'web'), undefined);
  t.equal(await store.consents.findConsent('bob', 'cli'), undefined);
});

t.test('revokeKnownGrant of an unknown grant id writes no key', async (t) => {
  const opened = await redisStore(t);
  const inspector = inspect(t, opened);
  t.equal(await opened.store.revokeKnownGrant(newGrantId(), 600), false);
  t.same(await inspector.keys(`${opened.keyPrefix}*`), []);
});

t.test('the entries channel: a message that is not a change is reported as such, and changes keep coming', async (t) => {
  const opened = await redisStore(t);
  const heard = await listen(t, opened.store.entries);
  const raw = await opened.raw();
  await raw.spublish(`${opened.keyPrefix}{entries}:changes`, 'not a change');
  await raw.spublish(`${opened.keyPrefix}{entries}:changes`, '7 planet mars');
  await opened.store.entries.createEntry('client', 'web', { client_id: 'web' });
  await heard.until(1);
  t.same(heard.malformed, ['not a change', '7 planet mars']);
  t.same(heard.changes, [{ version: 1, kind: 'client', id: 'web' }]);
});

import { Redis } from 'ioredis';
import t, { type Test } from 'tap';
import { StoreUnavailableError } from '../../src/errors/index.js';
import { RedisKeys } from '../../src/store/redis-keys.js';
import { mintOpaqueToken, newGrantId } from '../../src/tokens/opaque.js';
import { newRefreshTokenHead } from '../../src/tokens/refresh-token-format.js';
import { WEB_REDIRECT, WEB_SECRET } from '../helpers/authorize-fixtures.js';
import { expectOAuthError } from '../helpers/oauth-error.js';
import type { RedisProcess } from '../../harness/redis.js';
import { basic, FORM_HEADERS, form } from '../helpers/server.js';
import { clusterOfThisFile, clusterStore } from '../helpers/redis-stores.js';
import { expectInvalidGrant, setup } from '../suites/authorization-code.js';
import { INVALID, REUSED } from '../suites/refresh-token.js';
import { RECORD, REDEEM } from '../suites/store.contract.js';

const ACK = { minReplicas: 1, timeoutMs: 300 };
const LIFETIMES = { absoluteSeconds: 60, idleSeconds: 30 };
const SERVER_ERROR = { status: 500, error: 'server_error', description: 'the authorization server encountered an unexpected condition' };

/** Reads a key from a replica of the cluster (READONLY: a replica answers for its primary's slots). */
async function readFromReplica(replica: RedisProcess, key: string, field: string): Promise<string | null> {
  const client = new Redis({ port: replica.port, host: '127.0.0.1', lazyConnect: true });
  try {
    await client.connect();
    await client.readonly();
    return await client.hget(key, field);
  } finally {
    client.disconnect();
  }
}

/** The replica that serves `key`'s slot, frozen (SIGSTOP: connected, silent) until the test ends or `thaw`. */
async function freezeReplicaOf(t: Test, key: string) {
  const cluster = await clusterOfThisFile();
  const [replica] = await cluster.replicasOf(await cluster.primaryOf(key));
  if (!replica) throw new Error('the primary has no replica');
  replica.freeze();
  let frozen = true;
  const thaw = async () => {
    if (!frozen) return;
    frozen = false;
    replica.thaw();
    await cluster.settled();
  };
  t.teardown(thaw);
  return { replica, thaw };
}

t.test('REDIS_MIN_REPLICAS_ACK=1 on a cluster: the replica holds a single-use write before the call returns', async (t) => {
  const cluster = await clusterOfThisFile();
  const { store, keyPrefix } = await clusterStore(t, { replicaAck: ACK });
  const keys = new RedisKeys(keyPrefix);
  for (let i = 0; i < 10; i += 1) {
    const code = mintOpaqueToken(newGrantId());
    await store.saveAuthorizationCode(code.ref, RECORD, 60);
    t.equal((await store.redeemAuthorizationCode(code.ref, REDEEM)).status, 'consumed');
    const [replica] = await cluster.replicasOf(await cluster.primaryOf(keys.code(code.ref)));
    t.ok(await readFromReplica(replica as RedisProcess, keys.code(code.ref), 'used'), `code ${i}: marked used on the replica already`);
  }
});

t.test('a replica that cannot acknowledge: single-use writes fail closed, creation and reads go on', async (t) => {
  const { store, keyPrefix } = await clusterStore(t, { replicaAck: ACK });
  const keys = new RedisKeys(keyPrefix);
  const grantId = newGrantId();
  const code = mintOpaqueToken(grantId);
  const first = newRefreshTokenHead(grantId, 0);
  const { thaw } = await freezeReplicaOf(t, keys.family(grantId));

  await store.saveAuthorizationCode(code.ref, RECORD, 60);
  t.equal(await store.startRefreshFamily(grantId, { digest: first.digest, lifetimes: LIFETIMES }), true, 'creating needs no replica');

  const started = Date.now();
  const consuming = store.redeemAuthorizationCode(code.ref, REDEEM);
  const readStarted = Date.now();
  t.match(await store.readRefreshFamily(grantId), { generation: 0, revoked: false }, 'a read meanwhile is answered');
  t.ok(Date.now() - readStarted < 200, `at once (${Date.now() - readStarted} ms): WAIT blocks only its own connection`);
  await t.rejects(consuming, {
    name: 'StoreUnavailableError',
    message: /0 of the 1 required replicas acknowledged the write within 300 ms/,
  });
  const waited = Date.now() - started;
  t.ok(waited >= 290 && waited < 1000, `code consumption failed after the ack timeout (${waited} ms), within the command timeout`);

  const sealed = { idleSeconds: 30, graceSeconds: 10 };
  await t.rejects(store.rotateRefreshFamily(first, newRefreshTokenHead(grantId, 1).digest, 'sealed', sealed), StoreUnavailableError);
  await t.rejects(store.revokeGrant(grantId, 60), StoreUnavailableError);
  const cluster = await clusterOfThisFile();
  const held = (await cluster.primaryOf(keys.code(code.ref))).port;
  let jti = 0;
  while ((await cluster.primaryOf(keys.deniedAccessToken(`jti-${jti}`))).port !== held) jti += 1;
  await t.rejects(store.denylistAccessToken(`jti-${jti}`, 60), StoreUnavailableError, 'a denylisted jti on that primary too');
  let elsewhere = mintOpaqueToken(newGrantId());
  while ((await cluster.primaryOf(keys.code(elsewhere.ref))).port === held) elsewhere = mintOpaqueToken(newGrantId());
  await store.saveAuthorizationCode(elsewhere.ref, RECORD, 60);
  t.equal((await store.redeemAuthorizationCode(elsewhere.ref, REDEEM)).status, 'consumed', 'a grant on another primary is not held up');

  await thaw();
  t.equal(
    (await store.redeemAuthorizationCode(code.ref, REDEEM)).status,
    'replayed',
    'the primary did consume it: the code can never be issued',
  );
});

t.test('through the token endpoint: server_error, nothing issued', async (t) => {
  let keys = new RedisKeys('');
  const { app, verifier, newCode, redeem } = await setup(t, async (t) => {
    const opened = await clusterStore(t, { replicaAck: ACK });
    keys = new RedisKeys(opened.keyPrefix);
    return opened;
  });
  const redeemCode = (code: string) => redeem({ code, redirect_uri: WEB_REDIRECT, code_verifier: verifier });
  const refresh = (refreshToken: string) =>
    app.inject({
      method: 'POST',
      url: '/oauth2/token',
      headers: { ...FORM_HEADERS, authorization: basic('web', WEB_SECRET) },
      payload: form({ grant_type: 'refresh_token', refresh_token: refreshToken }),
    });
  const grantOf = (value: string) => value.split('.')[0] as string;

  t.test('a code whose consumption no replica acknowledged is never redeemed; a replay meanwhile is invalid_grant', async (t) => {
    // The server's first redemption reads the refresh-token key (a write acknowledged by the
    // replicas too, which could sit on the frozen primary): done before, so the code's own write is what fails.
    t.equal((await redeemCode(await newCode())).statusCode, 200);
    const code = await newCode();
    const { thaw } = await freezeReplicaOf(t, keys.family(grantOf(code)));
    expectOAuthError(t, await redeemCode(code), SERVER_ERROR);
    const replayed = 'the authorization code was already used; the tokens issued from it are revoked';
    expectInvalidGrant(t, await redeemCode(code), replayed);
    await thaw();
    expectInvalidGrant(t, await redeemCode(code), replayed);
  });

  t.test(
    'an earlier refresh token presented while no replica acknowledges: invalid_grant and the family revoked, not server_error',
    async (t) => {
      const issued = await redeemCode(await newCode());
      const { refresh_token: first } = issued.json() as { refresh_token: string };
      const rotated = await refresh(first);
      t.equal(rotated.statusCode, 200);
      const { refresh_token: current } = rotated.json() as { refresh_token: string };
      const family = keys.family(grantOf(current));
      const { replica, thaw } = await freezeReplicaOf(t, family);
      // The state a failover can leave behind: the primary applied a rotation that answered
      // server_error (no replica acknowledged it), so the client still holds `current`.
      expectOAuthError(t, await refresh(current), SERVER_ERROR);
      expectInvalidGrant(t, await refresh(first), REUSED);
      expectInvalidGrant(t, await refresh(first), INVALID);
      expectInvalidGrant(t, await refresh(current), INVALID);
      await thaw();
      t.equal(await readFromReplica(replica, family, 'revoked'), '1', 'the revocation reached the replica once it answered');
      expectInvalidGrant(t, await refresh(current), INVALID);
    },
  );

  t.test(
    'a rotation no replica acknowledged issues nothing; a retry in the grace window gets the successor once it is durable',
    async (t) => {
      const issued = await redeemCode(await newCode());
      t.equal(issued.statusCode, 200);
      const { refresh_token: refreshToken } = issued.json() as { refresh_token: string };
      const { thaw } = await freezeReplicaOf(t, keys.family(grantOf(refreshToken)));
      expectOAuthError(t, await refresh(refreshToken), SERVER_ERROR);
      await thaw();
      const retried = await refresh(refreshToken);
      t.equal(retried.statusCode, 200, 'the retry (REFRESH_REUSE_GRACE) gets the successor, now on the replica too');
      const successor = (retried.json() as { refresh_token: string }).refresh_token;
      t.not(successor, refreshToken);
      t.equal((await refresh(successor)).statusCode, 200, 'and the successor rotates');
    },
  );
});

t.test('a slot moved since the store read the slot map: the acknowledged write follows the MOVED', async (t) => {
  const cluster = await clusterOfThisFile();
  const { store, keyPrefix } = await clusterStore(t, { replicaAck: ACK });
  const keys = new RedisKeys(keyPrefix);
  const grantId = newGrantId();
  const first = newRefreshTokenHead(grantId, 0);
  const second = newRefreshTokenHead(grantId, 1);
  const third = newRefreshTokenHead(grantId, 2);
  const rotation = { idleSeconds: 30, graceSeconds: 0 };
  t.equal(await store.startRefreshFamily(grantId, { digest: first.digest, lifetimes: LIFETIMES }), true);
  t.same(await store.rotateRefreshFamily(first, second.digest, '', rotation), { status: 'rotated' });
  const from = await cluster.primaryOf(keys.family(grantId));
  const to = (await cluster.primaries()).find((primary) => primary.port !== from.port) as RedisProcess;
  await cluster.moveSlotOf(keys.family(grantId), to);
  t.teardown(() => cluster.moveSlotOf(keys.family(grantId), from));

  t.same(await store.rotateRefreshFamily(second, third.digest, '', rotation), { status: 'rotated' }, 'rotated on the new owner');
  t.match(await store.readRefreshFamily(grantId), { generation: 2, currentDigest: third.digest });
  t.same(await store.rotateRefreshFamily(first, third.digest, '', rotation), { status: 'reused' }, 'and an earlier token is reuse');
});

t.test('more replicas required than exist: every single-use write fails closed', async (t) => {
  const { store } = await clusterStore(t, { replicaAck: { minReplicas: 2, timeoutMs: 100 } });
  const code = mintOpaqueToken(newGrantId());
  await store.saveAuthorizationCode(code.ref, RECORD, 60);
  await t.rejects(store.redeemAuthorizationCode(code.ref, REDEEM), { message: /1 of the 2 required replicas acknowledged/ });
});

t.test('while no replica acknowledges, concurrent refusals are answered at once, not queued behind each WAIT', async (t) => {
  // With one connection for every write followed by WAIT, each write waited for the WAIT
  // sent before it: eight at once took 8 × 600 ms, past the 1 s command timeout, the
  // refusals included (server_error instead of invalid_grant after a failover under load).
  const ack = { minReplicas: 1, timeoutMs: 600 };
  const cluster = await clusterOfThisFile();
  const { store, keyPrefix } = await clusterStore(t, { replicaAck: ack, commandTimeoutMs: 1000 });
  const keys = new RedisKeys(keyPrefix);
  const rotation = { idleSeconds: 30, graceSeconds: 0 };
  const held = await cluster.primaryOf(keys.family(newGrantId()));
  /** Eight families on the same primary, each rotated once: [first (rotated), second (current)]. */
  const families: { first: ReturnType<typeof newRefreshTokenHead>; second: ReturnType<typeof newRefreshTokenHead> }[] = [];
  while (families.length < 8) {
    const grantId = newGrantId();
    if ((await cluster.primaryOf(keys.family(grantId))).port !== held.port) continue;
    const first = newRefreshTokenHead(grantId, 0);
    const second = newRefreshTokenHead(grantId, 1);
    t.equal(await store.startRefreshFamily(grantId, { digest: first.digest, lifetimes: LIFETIMES }), true);
    t.same(await store.rotateRefreshFamily(first, second.digest, '', rotation), { status: 'rotated' });
    families.push({ first, second });
  }
  const { thaw } = await freezeReplicaOf(t, keys.family(families[0]?.first.grantId as string));

  const timed = async <T>(operation: Promise<T>) => {
    const started = Date.now();
    const settled = await operation.then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    );
    return { ...settled, ms: Date.now() - started };
  };
  const refusals = families.slice(0, 6).map(({ first, second }) => timed(store.rotateRefreshFamily(first, second.digest, '', rotation)));
  const writes = families
    .slice(6)
    .map(({ second }) => timed(store.rotateRefreshFamily(second, newRefreshTokenHead(second.grantId, 2).digest, '', rotation)));
  for (const [i, refusal] of (await Promise.all(refusals)).entries()) {
    t.same(refusal, { value: { status: 'reused' }, ms: refusal.ms }, `earlier token ${i}: reuse detected, the family revoked`);
    t.ok(refusal.ms < ack.timeoutMs, `answered in ${refusal.ms} ms, on the script's reply, before the ${ack.timeoutMs} ms WAIT ended`);
  }
  for (const [i, write] of (await Promise.all(writes)).entries()) {
    t.match(
      write,
      { error: { name: 'StoreUnavailableError', message: /0 of the 1 required replicas acknowledged the write within 600 ms/ } },
      `rotation ${i}: fails closed`,
    );
    t.ok(
      write.ms >= ack.timeoutMs - 10 && write.ms < 1000,
      `after the ack timeout (${write.ms} ms), within the command timeout: not queued behind another WAIT`,
    );
  }
  await thaw();
  for (const { first, second } of families.slice(0, 6)) {
    t.same(await store.rotateRefreshFamily(second, first.digest, '', rotation), { status: 'invalid' }, 'the refused families stay revoked');
  }
});

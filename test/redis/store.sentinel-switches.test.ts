import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import type { Redis } from 'ioredis';
import t from 'tap';
import { closeRedisClient, createRedisClient } from '../../src/store/redis-connection.js';
import { SentinelSwitches } from '../../src/store/sentinel-switches.js';
import { startPrivateRedis } from '../../harness/redis.js';
import { nodeCommand, waitFor } from '../../harness/redis-nodes.js';
import { startRedisSentinel } from '../helpers/redis-sentinel.js';
import { openRedisStore, sentinelTarget } from '../helpers/redis-stores.js';

/**
 * SentinelSwitches (src/store/sentinel-switches.ts): at a `+switch-master` announcement, the
 * connections that are not on the announced primary reconnect, and one already on it keeps
 * its connection (ioredis' detector dropped every connection at every announcement). A
 * plain redis-server stands in for the sentinel first (it takes SUBSCRIBE and PUBLISH), so
 * the announcement is sent exactly when the test wants; then real sentinels move a store's
 * connections away from a primary that is cut off (frozen), whose connections stay open.
 */
t.test('an announcement moves the connections that are elsewhere, and only those', async (t) => {
  const [sentinel, oldPrimary, newPrimary] = await Promise.all([startPrivateRedis(t), startPrivateRedis(t), startPrivateRedis(t)]);
  const switches = new SentinelSwitches({ sentinels: [{ host: '127.0.0.1', port: sentinel.port }], name: 'primary' });
  const open = async (port: number) => {
    const client = createRedisClient({
      topology: { kind: 'standalone', url: `redis://127.0.0.1:${port}` },
      commandTimeoutMs: 1000,
    }) as Redis;
    t.teardown(() => closeRedisClient(client));
    switches.track(client);
    await client.connect();
    return client;
  };
  const onNew = await open(newPrimary.port);
  const onOld = await open(oldPrimary.port);
  const closed: string[] = [];
  onNew.on('close', () => closed.push('on the new primary'));
  onOld.on('close', () => closed.push('on the old primary'));
  const subscribers = async () => ((await nodeCommand(sentinel.port, 'PUBSUB', 'NUMSUB', '+switch-master')) as [string, number])[1];
  await waitFor('the subscription to +switch-master', async () => (await subscribers()) === 1, 5000);
  const onNewId = await onNew.client('ID');

  const announce = (message: string) => nodeCommand(sentinel.port, 'PUBLISH', '+switch-master', message);
  await announce(`other 127.0.0.1 ${newPrimary.port} 127.0.0.1 ${oldPrimary.port}`);
  await announce('primary garbled');
  await announce(`primary 127.0.0.1 ${oldPrimary.port} 127.0.0.1 ${newPrimary.port}`);
  await once(onOld, 'ready');
  t.same(closed, ['on the old primary'], 'only the connection elsewhere was dropped (another name and a garbled message moved none)');
  t.equal(await onNew.client('ID'), onNewId, 'the one on the announced primary kept its connection');
  t.equal(await onOld.ping(), 'PONG', 'the moved one answers again');

  switches.untrack(onNew);
  t.equal(await subscribers(), 1, 'subscribed while a connection is followed');
  switches.untrack(onOld);
  await waitFor('the subscription to end', async () => (await subscribers()) === 0, 5000).catch(() => undefined);
  t.equal(await subscribers(), 0, 'none followed: no subscription left');
});

t.test('behind real sentinels, a store leaves a primary that is cut off for the promoted replica', async (t) => {
  const setup = await startRedisSentinel(t, { replicas: 2 });
  const { store } = await openRedisStore(t, sentinelTarget(setup), {
    commandTimeoutMs: 500,
    replicaAck: { minReplicas: 1, timeoutMs: 500 },
  });
  const key = randomBytes(32);
  t.same(await store.refreshTokenKey(key), key, 'an acknowledged write before');
  const before = await setup.primary();
  before.freeze(); // its connections stay open: only the announcement can move them
  t.teardown(() => before.thaw());
  await waitFor('another primary', async () => (await setup.primary()) !== before, 30_000);
  t.not((await setup.primary()).port, before.port, 'the sentinels promoted a replica');
  // Until the store's connections leave the frozen primary, every command times out.
  await waitFor('the store to answer again', () => store.ping().then(() => true), 15_000).catch(() => undefined);
  await t.resolves(store.ping(), 'reads reach the promoted replica');
  await waitFor(
    'an acknowledged write on the promoted replica',
    () => store.refreshTokenKey(randomBytes(32)).then(() => true),
    15_000,
  ).catch(() => undefined);
  t.same(await store.refreshTokenKey(randomBytes(32)), key, 'an acknowledged write there too, the key replicated before the freeze');
  t.equal(before.exited(), false, 'all the while the old primary hangs, cut off, not dead');
});

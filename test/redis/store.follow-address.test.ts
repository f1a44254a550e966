import { once } from 'node:events';
import type { Redis } from 'ioredis';
import t from 'tap';
import { closeRedisClient, createRedisClient, followAddress } from '../../src/store/redis-connection.js';
import { startPrivateRedis } from '../../harness/redis.js';

/**
 * followAddress (src/store/redis-connection.ts): when the leading connection is ready again,
 * a follower connected to another address reconnects, one on the leader's address stays
 * connected. Behind Sentinel a reconnect asks the sentinels for the primary; here two
 * standalone servers stand for the old and the new primary.
 */
t.test('a follower elsewhere reconnects when the leader is ready again; one on its address stays', async (t) => {
  const [newPrimary, oldPrimary] = await Promise.all([startPrivateRedis(t), startPrivateRedis(t)]);
  const open = async (url: string) => {
    const client = createRedisClient({ topology: { kind: 'standalone', url }, commandTimeoutMs: 1000 }) as Redis;
    t.teardown(() => closeRedisClient(client));
    await client.connect();
    return client;
  };
  const leader = await open(newPrimary.url);
  const alongside = await open(newPrimary.url);
  const elsewhere = await open(oldPrimary.url);
  followAddress(leader, [alongside, elsewhere]);
  const closed: string[] = [];
  alongside.on('close', () => closed.push('alongside'));
  elsewhere.on('close', () => closed.push('elsewhere'));
  const alongsideId = await alongside.client('ID');

  leader.disconnect(true);
  await once(leader, 'ready');
  await once(elsewhere, 'ready');
  t.same(closed, ['elsewhere'], 'only the follower on another address was disconnected, and it reconnected');
  t.equal(await alongside.client('ID'), alongsideId, 'the follower on the leader address kept its connection');
  t.equal(await elsewhere.ping(), 'PONG', 'and answers again');
});

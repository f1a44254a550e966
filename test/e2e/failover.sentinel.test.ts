import t from 'tap';
import { startRedisSentinel } from '../helpers/redis-sentinel.js';
import { failoverSuite } from '../suites/failover.js';

/** The primary behind three sentinels dies; they promote a replica (down-after-milliseconds 1 s), the clients follow (+switch-master). */
failoverSuite(t, 'Redis Sentinel', async (t, replicas) => {
  const setup = await startRedisSentinel(t, { replicas });
  return {
    redisEnv: { REDIS_SENTINELS: setup.sentinelList, REDIS_SENTINEL_NAME: setup.name },
    victim: async () => {
      const primary = await setup.primary();
      return { primary, replicas: setup.nodes.filter((node) => node !== primary) };
    },
    promoted: async (dead) => (await setup.primary()) !== dead,
    settled: () => setup.settled(),
  };
});

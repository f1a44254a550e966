import t from 'tap';
import { clusterStore, redisStore } from '../helpers/redis-stores.js';
import { adminApiAcrossInstances } from '../suites/admin-api-instances.js';

/** Issue 30's proof through the admin API: two instances on one real Redis, and on a real 3 + 3 Cluster (sharded pub/sub). */

adminApiAcrossInstances(t, 'standalone Redis', async (t) => {
  const a = await redisStore(t);
  return [a, await redisStore(t, { keyPrefix: a.keyPrefix, clock: a.clock })];
});

adminApiAcrossInstances(t, 'Redis Cluster', async (t) => {
  const a = await clusterStore(t);
  return [a, await clusterStore(t, { keyPrefix: a.keyPrefix, clock: a.clock })];
});

import t from 'tap';
import { clusterStore, redisStore } from '../helpers/redis-stores.js';
import { entriesAcrossInstances } from '../suites/entries-instances.js';

/** Two instances (buildServer twice) on one real Redis, and on a real 3 + 3 Cluster (sharded pub/sub). */

entriesAcrossInstances(t, 'standalone Redis', async (t) => {
  const a = await redisStore(t);
  return [a, await redisStore(t, { keyPrefix: a.keyPrefix, clock: a.clock })];
});

entriesAcrossInstances(t, 'Redis Cluster', async (t) => {
  const a = await clusterStore(t);
  return [a, await clusterStore(t, { keyPrefix: a.keyPrefix, clock: a.clock })];
});

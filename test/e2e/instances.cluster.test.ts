import t from 'tap';
import { startRedisCluster } from '../../harness/redis-cluster.js';
import { twoInstancesSuite } from '../suites/two-instances.js';

twoInstancesSuite(t, 'a 3 + 3 Redis Cluster, REDIS_MIN_REPLICAS_ACK=1', async (t) => ({
  REDIS_CLUSTER_NODES: (await startRedisCluster(t)).seeds,
  REDIS_MIN_REPLICAS_ACK: '1',
}));

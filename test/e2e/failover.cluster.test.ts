import t from 'tap';
import { startRedisCluster } from '../../harness/redis-cluster.js';
import { failoverSuite } from '../suites/failover.js';

/** A primary of a 3-primary Redis Cluster dies; the cluster promotes a replica (cluster-node-timeout 1 s). */
failoverSuite(t, 'Redis Cluster', async (t, replicas) => {
  const cluster = await startRedisCluster(t, { replicasPerPrimary: replicas });
  return {
    redisEnv: { REDIS_CLUSTER_NODES: cluster.seeds },
    victim: async () => {
      const [primary] = await cluster.primaries();
      if (!primary) throw new Error('no primary');
      return { primary, replicas: await cluster.replicasOf(primary) };
    },
    promoted: async (dead) => {
      const primaries = await cluster.primaries();
      return primaries.length === 3 && !primaries.includes(dead);
    },
    settled: () => cluster.settled(),
  };
});

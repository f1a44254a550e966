import t from 'tap';
import { clusterStore } from '../helpers/redis-stores.js';
import { clientAssertionReplayContract } from '../suites/store.client-assertions.contract.js';
import { storeContract } from '../suites/store.contract.js';
import { deviceCodeStoreContract } from '../suites/store.devices.contract.js';
import { grantStoreContract } from '../suites/store.grants.contract.js';
import { registrationStoreContract } from '../suites/store.registrations.contract.js';
import { upstreamStoreContract } from '../suites/store.upstream.contract.js';
import { entryStoreContract } from '../suites/store.entries.contract.js';

storeContract(t, 'RedisStore on a 3 + 3 Redis Cluster', clusterStore);
storeContract(t, 'RedisStore on a 3 + 3 Redis Cluster, REDIS_MIN_REPLICAS_ACK=1', (t) =>
  clusterStore(t, { replicaAck: { minReplicas: 1, timeoutMs: 500 } }),
);
registrationStoreContract(t, 'RedisStore on a 3 + 3 Redis Cluster', clusterStore);
grantStoreContract(t, 'RedisStore on a 3 + 3 Redis Cluster', clusterStore);
upstreamStoreContract(t, 'RedisStore on a 3 + 3 Redis Cluster', clusterStore);
clientAssertionReplayContract(t, 'RedisStore on a 3 + 3 Redis Cluster', clusterStore);
deviceCodeStoreContract(t, 'RedisStore on a 3 + 3 Redis Cluster', clusterStore);
deviceCodeStoreContract(t, 'RedisStore on a 3 + 3 Redis Cluster, REDIS_MIN_REPLICAS_ACK=1', (t) =>
  clusterStore(t, { replicaAck: { minReplicas: 1, timeoutMs: 500 } }),
);
entryStoreContract(t, 'RedisStore on a 3 + 3 Redis Cluster', clusterStore);
entryStoreContract(t, 'RedisStore on a 3 + 3 Redis Cluster, REDIS_MIN_REPLICAS_ACK=1', (t) =>
  clusterStore(t, { replicaAck: { minReplicas: 1, timeoutMs: 500 } }),
);

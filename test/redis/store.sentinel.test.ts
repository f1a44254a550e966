import t from 'tap';
import { sentinelStore } from '../helpers/redis-stores.js';
import { storeContract } from '../suites/store.contract.js';
import { deviceCodeStoreContract } from '../suites/store.devices.contract.js';
import { registrationStoreContract } from '../suites/store.registrations.contract.js';
import { entryStoreContract } from '../suites/store.entries.contract.js';
import { upstreamStoreContract } from '../suites/store.upstream.contract.js';

storeContract(t, 'RedisStore behind Redis Sentinel', sentinelStore);
storeContract(t, 'RedisStore behind Redis Sentinel, REDIS_MIN_REPLICAS_ACK=1', (t) =>
  sentinelStore(t, { replicaAck: { minReplicas: 1, timeoutMs: 500 } }),
);
registrationStoreContract(t, 'RedisStore behind Redis Sentinel', sentinelStore);
upstreamStoreContract(t, 'RedisStore behind Redis Sentinel', sentinelStore);
deviceCodeStoreContract(t, 'RedisStore behind Redis Sentinel', sentinelStore);
entryStoreContract(t, 'RedisStore behind Redis Sentinel', sentinelStore);
entryStoreContract(t, 'RedisStore behind Redis Sentinel, REDIS_MIN_REPLICAS_ACK=1', (t) =>
  sentinelStore(t, { replicaAck: { minReplicas: 1, timeoutMs: 500 } }),
);

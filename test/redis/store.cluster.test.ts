import t from 'tap';
import { clusterStore } from '../helpers/stores.js';
import { storeContract } from '../suites/store.contract.js';

storeContract(t, 'RedisStore on a 3 + 3 Redis Cluster', clusterStore);

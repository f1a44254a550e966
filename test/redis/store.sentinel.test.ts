import t from 'tap';
import { sentinelStore } from '../helpers/stores.js';
import { storeContract } from '../suites/store.contract.js';

storeContract(t, 'RedisStore behind Redis Sentinel', sentinelStore);

import t from 'tap';
import { redisStore } from '../helpers/redis-stores.js';
import { addressLimitsSuite } from '../suites/address-limits.js';

addressLimitsSuite(t, 'Redis store', redisStore);

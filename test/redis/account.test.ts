import t from 'tap';
import { redisStore } from '../helpers/redis-stores.js';
import { accountSuite } from '../suites/account.js';

accountSuite(t, 'Redis store', redisStore);

import t from 'tap';
import { redisStore } from '../helpers/redis-stores.js';
import { adminGrantsSuite } from '../suites/admin-grants.js';

adminGrantsSuite(t, 'Redis store', redisStore);

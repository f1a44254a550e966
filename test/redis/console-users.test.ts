import t from 'tap';
import { redisStore } from '../helpers/redis-stores.js';
import { consoleUsersSuite } from '../suites/console-users.js';

consoleUsersSuite(t, 'Redis store', redisStore);

import t from 'tap';
import { redisStore } from '../helpers/redis-stores.js';
import { consoleClientsSuite } from '../suites/console-clients.js';

consoleClientsSuite(t, 'Redis store', redisStore);

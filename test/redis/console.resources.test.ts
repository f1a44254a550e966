import t from 'tap';
import { redisStore } from '../helpers/redis-stores.js';
import { consoleResourcesSuite } from '../suites/console-resources.js';

consoleResourcesSuite(t, 'Redis store', redisStore);

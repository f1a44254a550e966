import t from 'tap';
import { redisStore } from '../helpers/redis-stores.js';
import { consoleOverviewSuite } from '../suites/console-overview.js';

consoleOverviewSuite(t, 'Redis store', redisStore);

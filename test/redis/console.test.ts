import t from 'tap';
import { redisStore } from '../helpers/redis-stores.js';
import { consoleSuite } from '../suites/console.js';

consoleSuite(t, 'Redis store', redisStore);

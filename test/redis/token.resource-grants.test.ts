import t from 'tap';
import { redisStore } from '../helpers/redis-stores.js';
import { resourceIndicatorSuite } from '../suites/resource-indicators.js';

resourceIndicatorSuite(t, 'Redis store', redisStore);

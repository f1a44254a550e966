import t from 'tap';
import { redisStore } from '../helpers/redis-stores.js';
import { deviceFlowSuite } from '../suites/device-flow.js';

deviceFlowSuite(t, 'Redis', redisStore);

import t from 'tap';
import { redisStore } from '../helpers/redis-stores.js';
import { dpopTokenEndpointSuite } from '../suites/dpop.js';

dpopTokenEndpointSuite(t, 'Redis store', redisStore);

import t from 'tap';
import { redisStore } from '../helpers/redis-stores.js';
import { dpopClientSuite } from '../suites/dpop-client.js';

dpopClientSuite(t, 'Redis store', redisStore);

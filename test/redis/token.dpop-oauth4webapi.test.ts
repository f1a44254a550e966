import t from 'tap';
import { redisStore } from '../helpers/stores.js';
import { dpopClientSuite } from '../suites/dpop-client.js';

dpopClientSuite(t, 'Redis store', redisStore);

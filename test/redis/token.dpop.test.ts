import t from 'tap';
import { redisStore } from '../helpers/stores.js';
import { dpopTokenEndpointSuite } from '../suites/dpop.js';

dpopTokenEndpointSuite(t, 'Redis store', redisStore);

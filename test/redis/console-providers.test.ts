import t from 'tap';
import { redisStore } from '../helpers/redis-stores.js';
import { consoleProvidersSuite } from '../suites/console-providers.js';
import { consoleWorkloadTrustsSuite } from '../suites/console-workload-trusts.js';

consoleProvidersSuite(t, 'Redis store', redisStore);
consoleWorkloadTrustsSuite(t, 'Redis store', redisStore);

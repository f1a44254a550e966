import t from 'tap';
import { memoryStore } from '../helpers/stores.js';
import { consoleProvidersSuite } from '../suites/console-providers.js';
import { consoleWorkloadTrustsSuite } from '../suites/console-workload-trusts.js';

consoleProvidersSuite(t, 'memory store', memoryStore);
consoleWorkloadTrustsSuite(t, 'memory store', memoryStore);

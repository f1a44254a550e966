import t from 'tap';
import { memoryStore } from '../helpers/stores.js';
import { addressLimitsSuite } from '../suites/address-limits.js';

addressLimitsSuite(t, 'memory store', memoryStore);

import t from 'tap';
import { memoryStore } from '../helpers/stores.js';
import { adminGrantsSuite } from '../suites/admin-grants.js';

adminGrantsSuite(t, 'memory store', memoryStore);

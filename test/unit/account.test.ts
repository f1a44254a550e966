import t from 'tap';
import { memoryStore } from '../helpers/stores.js';
import { accountSuite } from '../suites/account.js';

accountSuite(t, 'memory store', memoryStore);

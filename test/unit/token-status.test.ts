import t from 'tap';
import { memoryStore } from '../helpers/stores.js';
import { tokenStatusSuite } from '../suites/token-status.js';

tokenStatusSuite(t, memoryStore);

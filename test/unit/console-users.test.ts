import t from 'tap';
import { memoryStore } from '../helpers/stores.js';
import { consoleUsersSuite } from '../suites/console-users.js';

consoleUsersSuite(t, 'memory store', memoryStore);

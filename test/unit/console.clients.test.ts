import t from 'tap';
import { memoryStore } from '../helpers/stores.js';
import { consoleClientsSuite } from '../suites/console-clients.js';

consoleClientsSuite(t, 'memory store', memoryStore);

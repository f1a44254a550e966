import t from 'tap';
import { memoryStore } from '../helpers/stores.js';
import { consoleResourcesSuite } from '../suites/console-resources.js';

consoleResourcesSuite(t, 'memory store', memoryStore);

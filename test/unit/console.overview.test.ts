import t from 'tap';
import { memoryStore } from '../helpers/stores.js';
import { consoleOverviewSuite } from '../suites/console-overview.js';

consoleOverviewSuite(t, 'memory store', memoryStore);

import t from 'tap';
import { memoryStore } from '../helpers/stores.js';
import { consoleSuite } from '../suites/console.js';

consoleSuite(t, 'memory store', memoryStore);

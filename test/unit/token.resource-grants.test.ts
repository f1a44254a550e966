import t from 'tap';
import { memoryStore } from '../helpers/stores.js';
import { resourceIndicatorSuite } from '../suites/resource-indicators.js';

resourceIndicatorSuite(t, 'memory store', memoryStore);

import t from 'tap';
import { memoryStore } from '../helpers/stores.js';
import { deviceFlowSuite } from '../suites/device-flow.js';

deviceFlowSuite(t, 'the memory store', memoryStore);

import t from 'tap';
import { memoryStore } from '../helpers/stores.js';
import { dpopTokenEndpointSuite } from '../suites/dpop.js';

dpopTokenEndpointSuite(t, 'memory store', memoryStore);

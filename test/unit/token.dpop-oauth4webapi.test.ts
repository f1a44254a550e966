import t from 'tap';
import { memoryStore } from '../helpers/stores.js';
import { dpopClientSuite } from '../suites/dpop-client.js';

dpopClientSuite(t, 'memory store', memoryStore);

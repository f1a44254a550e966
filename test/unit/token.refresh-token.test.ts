import t from 'tap';
import { memoryStore } from '../helpers/stores.js';
import { refreshTokenSuite } from '../suites/refresh-token.js';

refreshTokenSuite(t, 'memory store', memoryStore);

import t from 'tap';
import { memoryStore } from '../helpers/stores.js';
import { upstreamSignInSuite } from '../suites/upstream-sign-in.js';

upstreamSignInSuite(t, memoryStore);

import t from 'tap';
import { memoryStore } from '../helpers/stores.js';
import { openidConnectSuite } from '../suites/openid-connect.js';

openidConnectSuite(t, memoryStore);

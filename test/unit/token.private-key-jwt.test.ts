import t from 'tap';
import { memoryStore } from '../helpers/stores.js';
import { privateKeyJwtSuite } from '../suites/private-key-jwt.js';

privateKeyJwtSuite(t, memoryStore);

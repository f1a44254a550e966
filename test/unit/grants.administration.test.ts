import t from 'tap';
import { memoryStore } from '../helpers/stores.js';
import { grantAdministrationSuite } from '../suites/grant-administration.js';

grantAdministrationSuite(t, 'memory store', memoryStore);

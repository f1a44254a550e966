import t from 'tap';
import { memoryStore } from '../helpers/stores.js';
import { oidcLogoutSuite } from '../suites/oidc-logout.js';

oidcLogoutSuite(t, memoryStore);

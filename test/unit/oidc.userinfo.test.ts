import t from 'tap';
import { memoryStore } from '../helpers/stores.js';
import { oidcUserinfoSuite } from '../suites/oidc-userinfo.js';

oidcUserinfoSuite(t, memoryStore);

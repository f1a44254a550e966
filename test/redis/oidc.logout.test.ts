import t from 'tap';
import { redisStore } from '../helpers/redis-stores.js';
import { oidcLogoutSuite } from '../suites/oidc-logout.js';

oidcLogoutSuite(t, (t) => redisStore(t));

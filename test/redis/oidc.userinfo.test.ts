import t from 'tap';
import { redisStore } from '../helpers/redis-stores.js';
import { oidcUserinfoSuite } from '../suites/oidc-userinfo.js';

oidcUserinfoSuite(t, (t) => redisStore(t));

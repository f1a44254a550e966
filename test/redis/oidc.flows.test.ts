import t from 'tap';
import { redisStore } from '../helpers/redis-stores.js';
import { openidConnectSuite } from '../suites/openid-connect.js';

openidConnectSuite(t, (t) => redisStore(t));

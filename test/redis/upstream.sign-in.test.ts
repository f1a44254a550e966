import t from 'tap';
import { redisStore } from '../helpers/redis-stores.js';
import { upstreamSignInSuite } from '../suites/upstream-sign-in.js';

upstreamSignInSuite(t, (t) => redisStore(t));

import t from 'tap';
import { redisStore } from '../helpers/redis-stores.js';
import { privateKeyJwtSuite } from '../suites/private-key-jwt.js';

privateKeyJwtSuite(t, redisStore);

import t from 'tap';
import { redisStore } from '../helpers/redis-stores.js';
import { grantAdministrationSuite } from '../suites/grant-administration.js';

grantAdministrationSuite(t, 'Redis store', redisStore);

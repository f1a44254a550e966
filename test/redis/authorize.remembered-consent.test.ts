import t from 'tap';
import { redisStore } from '../helpers/redis-stores.js';
import { rememberedConsentSuite } from '../suites/remembered-consent.js';

rememberedConsentSuite(t, 'Redis store', redisStore);

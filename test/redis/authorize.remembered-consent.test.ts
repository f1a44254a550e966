import t from 'tap';
import { redisStore } from '../helpers/redis-stores.js';
import { rememberedConsentSuite } from '../suites/remembered-consent.js';
import { stepUpConsentSuite } from '../suites/step-up-consent.js';

rememberedConsentSuite(t, 'Redis store', redisStore);
stepUpConsentSuite(t, 'Redis store', redisStore);

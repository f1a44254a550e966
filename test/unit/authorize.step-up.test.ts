import t from 'tap';
import { memoryStore } from '../helpers/stores.js';
import { stepUpConsentSuite } from '../suites/step-up-consent.js';

stepUpConsentSuite(t, 'memory store', memoryStore);

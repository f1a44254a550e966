import t from 'tap';
import { memoryStore } from '../helpers/stores.js';
import { adminApiSecrets } from '../suites/admin-api-secrets.js';

adminApiSecrets(t, 'memory store', memoryStore);

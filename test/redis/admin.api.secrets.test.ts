import t from 'tap';
import { redisStore } from '../helpers/redis-stores.js';
import { adminApiSecrets } from '../suites/admin-api-secrets.js';

adminApiSecrets(t, 'standalone Redis (every key of the server)', redisStore);

import t from 'tap';
import { startPrivateRedis } from '../helpers/redis.js';
import { twoInstancesSuite } from '../suites/two-instances.js';

twoInstancesSuite(t, 'standalone', async (t) => ({ REDIS_URL: (await startPrivateRedis(t)).url }));

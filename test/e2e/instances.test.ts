import t from 'tap';
import { startPrivateRedis } from '../../harness/redis.js';
import { twoInstancesSuite } from '../suites/two-instances.js';

twoInstancesSuite(t, 'standalone', async (t) => ({ REDIS_URL: (await startPrivateRedis(t)).url }));

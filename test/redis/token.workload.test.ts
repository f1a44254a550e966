import t from 'tap';
import { redisStore } from '../helpers/redis-stores.js';
import { workloadSuite } from '../suites/workload-identity.js';

workloadSuite(t, (t) => redisStore(t));

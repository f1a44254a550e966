import t from 'tap';
import { redisStore } from '../helpers/redis-stores.js';
import { upstreamGithubSuite } from '../suites/upstream-github.js';

upstreamGithubSuite(t, (t) => redisStore(t));

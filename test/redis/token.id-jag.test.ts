import t from 'tap';
import { redisStore } from '../helpers/redis-stores.js';
import { idJagSuite } from '../suites/id-jag.js';

idJagSuite(t, (t) => redisStore(t));

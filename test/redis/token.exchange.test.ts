import t from 'tap';
import { redisStore } from '../helpers/redis-stores.js';
import { tokenExchangeSuite } from '../suites/token-exchange.js';

tokenExchangeSuite(t, 'Redis', redisStore);

import t from 'tap';
import { memoryStore } from '../helpers/stores.js';
import { tokenExchangeSuite } from '../suites/token-exchange.js';

tokenExchangeSuite(t, 'memory store', memoryStore);

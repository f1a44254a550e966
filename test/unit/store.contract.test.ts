import t from 'tap';
import { memoryStore } from '../helpers/stores.js';
import { storeContract } from '../suites/store.contract.js';

storeContract(t, 'MemoryStore', memoryStore);

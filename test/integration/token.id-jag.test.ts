import t from 'tap';
import { memoryStore } from '../helpers/stores.js';
import { idJagSuite } from '../suites/id-jag.js';

idJagSuite(t, memoryStore);

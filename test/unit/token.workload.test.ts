import t from 'tap';
import { memoryStore } from '../helpers/stores.js';
import { workloadSuite } from '../suites/workload-identity.js';

workloadSuite(t, memoryStore);

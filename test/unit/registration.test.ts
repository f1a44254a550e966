import t from 'tap';
import { memoryStore } from '../helpers/stores.js';
import { registrationMetadataSuite } from '../suites/registration-metadata.js';
import { registrationSuite } from '../suites/registration.js';
import { registrationManagementSuite } from '../suites/registration-management.js';

registrationMetadataSuite(t, 'memory store', memoryStore);
registrationSuite(t, 'memory store', memoryStore);
registrationManagementSuite(t, 'memory store', memoryStore);

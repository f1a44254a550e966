import t from 'tap';
import { memoryStore } from '../helpers/stores.js';
import { clientAssertionReplayContract } from '../suites/store.client-assertions.contract.js';
import { storeContract } from '../suites/store.contract.js';
import { deviceCodeStoreContract } from '../suites/store.devices.contract.js';
import { grantStoreContract } from '../suites/store.grants.contract.js';
import { registrationStoreContract } from '../suites/store.registrations.contract.js';
import { upstreamStoreContract } from '../suites/store.upstream.contract.js';
import { entryStoreContract } from '../suites/store.entries.contract.js';

storeContract(t, 'MemoryStore', memoryStore);
grantStoreContract(t, 'MemoryStore', memoryStore);
upstreamStoreContract(t, 'MemoryStore', memoryStore);
registrationStoreContract(t, 'MemoryStore', memoryStore);
clientAssertionReplayContract(t, 'MemoryStore', memoryStore);
deviceCodeStoreContract(t, 'MemoryStore', memoryStore);
entryStoreContract(t, 'MemoryStore', memoryStore);

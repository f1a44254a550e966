import t from 'tap';
import { memoryStore } from '../helpers/stores.js';
import { upstreamCallbackSuite } from '../suites/upstream-callbacks.js';
import { upstreamSessionSuite } from '../suites/upstream-session.js';
import { upstreamSignInSuite } from '../suites/upstream-sign-in.js';

upstreamSignInSuite(t, memoryStore);
upstreamCallbackSuite(t, memoryStore);
// A restarted instance on the memory store: the same store (what a process keeps is the point of Redis).
upstreamSessionSuite(t, { open: memoryStore, reopen: async (_t, store) => store });

import t from 'tap';
import { redisStore } from '../helpers/redis-stores.js';
import { upstreamCallbackSuite } from '../suites/upstream-callbacks.js';
import { upstreamSessionSuite } from '../suites/upstream-session.js';
import { upstreamSignInSuite } from '../suites/upstream-sign-in.js';

upstreamSignInSuite(t, (t) => redisStore(t));
upstreamCallbackSuite(t, (t) => redisStore(t));
// The restarted instance opens its own connection to the same Redis, under the same prefix.
upstreamSessionSuite(t, {
  open: (t) => redisStore(t),
  reopen: (t, store) => redisStore(t, { keyPrefix: store.keyPrefix, clock: store.clock }),
});

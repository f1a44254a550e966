import t from 'tap';
import { redisStore } from '../helpers/redis-stores.js';
import { oidcPromptSuite } from '../suites/oidc-prompt.js';

oidcPromptSuite(t, (t) => redisStore(t));

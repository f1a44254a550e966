import t from 'tap';
import { memoryStore } from '../helpers/stores.js';
import { oidcPromptSuite } from '../suites/oidc-prompt.js';

oidcPromptSuite(t, memoryStore);

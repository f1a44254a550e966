import t from 'tap';
import { memoryStore } from '../helpers/stores.js';
import { upstreamGithubSuite } from '../suites/upstream-github.js';

upstreamGithubSuite(t, memoryStore);

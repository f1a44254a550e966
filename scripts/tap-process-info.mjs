// Imported first into every process tap starts (scripts/tap.mjs puts it in NODE_OPTIONS),
// before tap's own process-info recorder reads _TAPJS_PROCESSINFO_EXCLUDE_: the files it
// must not record. Without coverage it records nothing (it has nothing to report); with
// coverage it skips node_modules, which the coverage report leaves out anyway.
import { env } from 'node:process';

if (env.TAP_CHILD_ID !== undefined) {
  env._TAPJS_PROCESSINFO_EXCLUDE_ = env.TAP_DISABLE_COVERAGE === '1' ? '/./' : '/^(node|tapmock):|[\\\\/](node_modules|\\.tap)[\\\\/]/';
}

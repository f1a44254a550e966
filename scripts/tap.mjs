// Runs tap with two settings that make each test process start faster; `npm test` and the
// tier scripts call it instead of tap. tap starts one Node process per test file (over a
// hundred in the unit tier), so start-up is most of what the fast tier costs:
// - NODE_COMPILE_CACHE: Node keeps the compiled code of every module on disk
//   (node_modules/.cache/node-compile), so the next process skips compiling it.
// - tap's process-info recorder (@tapjs/processinfo, loaded into every test process) reads
//   each module a test loads and looks up its source map, for coverage and `tap --changed`.
//   That is about 0.4 s of CPU per process. tap-process-info.mjs (imported first, through
//   NODE_OPTIONS) narrows it: nothing when coverage is off, our own files when it is on.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { argv, env, execPath, exit } from 'node:process';
import { pathToFileURL } from 'node:url';

const ROOT = join(import.meta.dirname, '..');
const tapBin = join(ROOT, 'node_modules', 'tap', createRequire(import.meta.url)('tap/package.json').bin.tap);
const processInfo = JSON.stringify(`--import=${pathToFileURL(join(import.meta.dirname, 'tap-process-info.mjs')).href}`);

const result = spawnSync(execPath, [tapBin, ...argv.slice(2)], {
  stdio: 'inherit',
  env: {
    ...env,
    NODE_COMPILE_CACHE: env.NODE_COMPILE_CACHE ?? join(ROOT, 'node_modules', '.cache', 'node-compile'),
    NODE_OPTIONS: [processInfo, env.NODE_OPTIONS].filter(Boolean).join(' '),
  },
});
exit(result.status ?? 1);

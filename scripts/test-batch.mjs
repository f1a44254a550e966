// Runs several compiled test files in one process, each as a subtest named after its file.
// tap starts one Node process per test file, and in the unit tier starting one (Node, tap,
// the server's modules, their dependencies) costs about as much as the file's tests, so
// compile-tests.mjs groups the unit and Redis tiers' files into a few batches that each run
// this. tap's timeout (240 s) is then the batch's: a batch takes 3-25 s today.
//
// A file in a batch sees what it would alone: `import t from 'tap'` resolves (for the files
// under .tests/) to tap-in-batch.mjs, whose `t` is that file's subtest, so its top-level
// tests, teardowns and plans are scoped to it; the next file starts when its tests are done.
// Files must leave no process-wide state behind (environment, timers, listeners), as they
// already must not within a file.
import * as nodeModule from 'node:module';
import { version } from 'node:process';
import { URL } from 'node:url';
import t from 'tap';
import { runWithin } from './tap-in-batch.mjs';

const SHIM = new URL('./tap-in-batch.mjs', import.meta.url).href;
const TESTS = new URL('../.tests/', import.meta.url).href;

// module.registerHooks: Node 22.15 and later (the engines say 22; CI runs 22.23 and 24).
if (typeof nodeModule.registerHooks !== 'function')
  throw new Error(`the batched test tiers need Node 22.15 or later (module.registerHooks); this is ${version}`);
nodeModule.registerHooks({
  resolve(specifier, context, nextResolve) {
    if (specifier === 'tap' && context.parentURL?.startsWith(TESTS)) return { url: SHIM, shortCircuit: true };
    return nextResolve(specifier, context);
  },
});

/** Runs each file (a path relative to the batch file) in turn, as a subtest of the batch. */
export async function runBatch(batchUrl, files) {
  for (const file of files) {
    await t.test(file.replace(/^(\.\.\/)+/, ''), async (sub) => {
      runWithin(sub);
      await import(new URL(file, batchUrl).href);
    });
  }
  runWithin(t);
}

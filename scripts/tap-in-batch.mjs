// What `import t from 'tap'` gives a test file that runs inside a batch (test-batch.mjs):
// the batch's subtest for that file, not tap's root. It is a live binding, so every use of
// `t` (the file's own top-level calls, and a helper's) reaches the file running now.
import tap from 'tap';

export * from 'tap';

let current = tap;
export { current as default };

/** The batch runner points `t` at the subtest of the file it is about to run. */
export function runWithin(test) {
  current = test;
}

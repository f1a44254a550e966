// Runs npm scripts side by side and fails if any fails: `npm test`'s checks before the tests
// (lint beside type-check and build), which each use about one core. Each script's output
// is held and printed whole when it ends, in the order given, so two never interleave.
// Usage: node scripts/run-parallel.mjs <script> [<script>...]; a script given as `a+b` runs a, then b.
import { Buffer } from 'node:buffer';
import { spawn } from 'node:child_process';
import { argv, exit, stderr, stdout } from 'node:process';

/** Runs `npm run -s <name>`; resolves with its exit code and everything it printed. */
function run(name) {
  return new Promise((resolve) => {
    const child = spawn('npm', ['run', '-s', name], { stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks = [];
    child.stdout.on('data', (chunk) => chunks.push(chunk));
    child.stderr.on('data', (chunk) => chunks.push(chunk));
    child.on('error', (error) => resolve({ code: 1, output: Buffer.from(`${error.message}\n`) }));
    child.on('close', (code) => resolve({ code: code ?? 1, output: Buffer.concat(chunks) }));
  });
}

/** `a+b`: a, then b if a succeeded. */
async function runChain(chain) {
  const outputs = [];
  for (const name of chain.split('+')) {
    const { code, output } = await run(name);
    outputs.push(output);
    if (code !== 0) return { chain, code, failed: name, output: Buffer.concat(outputs) };
  }
  return { chain, code: 0, output: Buffer.concat(outputs) };
}

const results = await Promise.all(argv.slice(2).map(runChain));
for (const result of results) {
  stdout.write(result.output);
  if (result.code !== 0) stderr.write(`npm run ${result.failed} failed (exit ${result.code})\n`);
}
exit(results.some((result) => result.code !== 0) ? 1 : 0);

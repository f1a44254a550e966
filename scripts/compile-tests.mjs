// Compiles the TypeScript the tests load (src/, test/, harness/, examples/) to JavaScript in
// .tests/, file by file, with source maps, so each test process loads plain JavaScript:
// a TypeScript loader costs every test file about a quarter of a second of start-up, and
// tap starts one process per file. Type-stripping only (esbuild): `npm run typecheck`
// checks the types. The folder is wiped first, so a deleted test never runs from it.
import { readdir, rm } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { stdout } from 'node:process';
import { build } from 'esbuild';

const ROOT = join(import.meta.dirname, '..');
const OUT = join(ROOT, '.tests');
const FOLDERS = ['src', 'test', 'harness', 'examples'];

async function typeScriptFiles(dir) {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return typeScriptFiles(path);
      return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
    }),
  );
  return nested.flat();
}

const started = Date.now();
await rm(OUT, { recursive: true, force: true });
const entryPoints = (await Promise.all(FOLDERS.map((folder) => typeScriptFiles(join(ROOT, folder))))).flat();
await build({
  entryPoints,
  outdir: OUT,
  outbase: ROOT,
  format: 'esm',
  platform: 'node',
  target: 'node22',
  sourcemap: 'linked',
  sourcesContent: false,
  // Keep each file as it is: no bundling, imports stay relative (`./x.js` is the compiled x.ts).
  bundle: false,
  logLevel: 'warning',
});
stdout.write(`compiled ${entryPoints.length} files to ${relative(ROOT, OUT)}/ in ${Date.now() - started} ms\n`);

import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import t from 'tap';

/**
 * The one rule between the layers (ARCHITECTURE.md): data enters at a route and flows
 * down; domain code never reaches back up into HTTP.
 */
const ROOT = resolve(import.meta.dirname, '..', '..');
const DOMAIN_FOLDERS = [
  'authorize',
  'clients',
  'dpop',
  'fetch',
  'grants',
  'keys',
  'events',
  'fetch',
  'grants',
  'keys',
  'metrics',
  'oauth',
  'resources',
  'session',
  'store',
  'tokens',
  'users',
];
const HTTP_FOLDERS = ['src/http', 'src/routes', 'src/pages'];
const IMPORT = /^\s*(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|^\s*import\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/gm;

async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((entry) =>
      entry.isDirectory() ? sourceFiles(join(dir, entry.name)) : Promise.resolve(entry.name.endsWith('.ts') ? [join(dir, entry.name)] : []),
    ),
  );
  return nested.flat();
}

/** Every module a file imports: package names as written, relative paths resolved from the repository root. */
export async function importsOf(file: string): Promise<string[]> {
  const source = await readFile(file, 'utf8');
  return [...source.matchAll(IMPORT)].map((match) => {
    const specifier = (match[1] ?? match[2] ?? match[3]) as string;
    return specifier.startsWith('.') ? relative(ROOT, resolve(dirname(file), specifier)) : specifier;
  });
}

t.test('domain folders never import fastify, src/http, src/routes or src/pages', async (t) => {
  const violations: string[] = [];
  let checked = 0;
  for (const folder of DOMAIN_FOLDERS) {
    for (const file of await sourceFiles(join(ROOT, 'src', folder))) {
      checked += 1;
      for (const imported of await importsOf(file)) {
        const upward =
          imported === 'fastify' ||
          imported.startsWith('@fastify/') ||
          HTTP_FOLDERS.some((f) => imported === f || imported.startsWith(`${f}/`));
        if (upward) violations.push(`${relative(ROOT, file)} imports ${imported}`);
      }
    }
  }
  t.ok(checked > 30, `read ${checked} domain files`);
  t.same(violations, [], 'imports only point down');
});

t.test('the import scanner sees every form of import', async (t) => {
  const file = join(ROOT, 'src', 'app.ts');
  const imports = await importsOf(file);
  t.ok(imports.includes('fastify'), 'a package import');
  t.ok(imports.includes('src/routes/token.js'), 'a relative import, resolved');
  t.ok(imports.includes('src/store/types.js'), 'an import type');
});

/** The DPoP proof validation the token endpoint and the verifier share (RFC 9449 §4.3). */
const SHARED_DPOP_MODULES = ['src/dpop/proof.js', 'src/dpop/htu.js', 'src/dpop/key-cache.js'];

t.test('the verifier package loads only jose and its own files (no server code)', async (t) => {
  const allowed = (imported: string) =>
    imported === 'jose' ||
    imported === 'node:crypto' ||
    imported.startsWith('src/verifier/') ||
    imported === 'src/keys/algorithms.js' ||
    SHARED_DPOP_MODULES.includes(imported);
  const outside: string[] = [];
  const files = await sourceFiles(join(ROOT, 'src', 'verifier'));
  for (const file of files) {
    const name = relative(ROOT, file);
    for (const imported of await importsOf(file)) {
      // The Fastify guard imports Fastify's types only (erased at build time).
      if (name === 'src/verifier/fastify.ts' && imported === 'fastify') continue;
      if (!allowed(imported)) outside.push(`${name} imports ${imported}`);
    }
  }
  t.ok(files.length >= 5, `read ${files.length} verifier files`);
  t.same(outside, []);
  t.same(await importsOf(join(ROOT, 'src', 'keys', 'algorithms.ts')), [], 'the algorithms list imports nothing');
  for (const shared of SHARED_DPOP_MODULES) {
    const imports = await importsOf(join(ROOT, shared.replace(/\.js$/, '.ts')));
    t.same(
      imports.filter((imported) => !['jose', 'node:crypto', ...SHARED_DPOP_MODULES].includes(imported)),
      [],
      `${shared} (shared with the verifier) imports only jose, node:crypto and the other shared DPoP modules`,
    );
  }
});

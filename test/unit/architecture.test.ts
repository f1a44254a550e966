import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { REPOSITORY } from '../../harness/repository.js';
import t from 'tap';

/**
 * The one rule between the layers (ARCHITECTURE.md): the folders and root modules of src/
 * stand in an order, top to bottom, and a module imports only from its own layer and the
 * layers below it. Data enters at a route and flows down; nothing reaches back up.
 */
const ROOT = REPOSITORY;
export const LAYERS: readonly (readonly string[])[] = [
  ['main.ts', 'dev.ts', 'dev-credentials.ts', 'cluster', 'cli'],
  ['server.ts', 'registries.ts', 'registry-files.ts'],
  ['app.ts', 'app-admin.ts', 'services'],
  ['config'],
  ['routes'],
  ['http'],
  ['metrics'],
  ['pages'],
  ['console'],
  ['admin'],
  ['authorize'],
  ['grants'],
  ['device'],
  ['entries'],
  ['identity'],
  ['workloads'],
  ['oidc'],
  ['dpop'],
  ['tokens'],
  ['keys'],
  ['session'],
  ['clients'],
  ['users'],
  ['resources'],
  ['fetch'],
  ['oauth'],
  ['events'],
  ['store'],
  ['registry'],
  ['endpoints.ts', 'errors', 'clock.ts', 'shared'],
];
const HTTP_PACKAGES = (imported: string) => imported === 'fastify' || imported.startsWith('@fastify/');
/** The layers that answer HTTP: only they (and what builds the app) may import Fastify. */
const HTTP_LAYERS = new Set(['routes', 'http', 'pages']);
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

/** The entry of LAYERS a file of src/ belongs to: its folder, or its own name for a root module. */
function unitOf(path: string): string {
  const [first = '', second] = relative(join(ROOT, 'src'), path).split('/');
  return second === undefined ? first.replace(/\.js$/, '.ts') : first;
}

const layerOf = (unit: string) => LAYERS.findIndex((layer) => layer.includes(unit));

t.test('every folder and root module of src/ has its place in the list of layers', async (t) => {
  const units = new Set((await sourceFiles(join(ROOT, 'src'))).map(unitOf));
  t.same([...units].filter((unit) => layerOf(unit) === -1).sort(), [], 'nothing unlisted');
  t.same(
    LAYERS.flat().filter((unit) => !units.has(unit)),
    [],
    'nothing listed that is not there',
  );
  t.equal(new Set(LAYERS.flat()).size, LAYERS.flat().length, 'each listed once');
});

const PAGES_LAYER = layerOf('pages');

/** What is wrong with `file` importing `imported` (resolved as importsOf gives it): an upward import, or Fastify below the HTTP layers. */
function violationOf(file: string, imported: string): string | undefined {
  const unit = unitOf(file);
  const layer = layerOf(unit);
  const name = relative(ROOT, file);
  if (HTTP_PACKAGES(imported) && layer > PAGES_LAYER && !HTTP_LAYERS.has(unit)) return `${name} imports ${imported}`;
  if (!imported.startsWith('src/')) return undefined;
  const target = unitOf(join(ROOT, imported));
  return layerOf(target) < layer ? `${name} (${unit}) imports ${imported} (${target}, a layer above)` : undefined;
}

t.test('imports only point down the list of layers, and only the HTTP layers import Fastify', async (t) => {
  const violations: string[] = [];
  const files = await sourceFiles(join(ROOT, 'src'));
  for (const file of files) {
    for (const imported of await importsOf(file)) {
      const violation = violationOf(file, imported);
      if (violation) violations.push(violation);
    }
  }
  t.ok(files.length > 150, `read ${files.length} files`);
  t.same(violations, [], 'imports only point down');
});

t.test('what the rule finds', async (t) => {
  const at = (path: string) => join(ROOT, path);
  t.equal(
    violationOf(at('src/session/sign-in-mark.ts'), 'src/authorize/request.js'),
    'src/session/sign-in-mark.ts (session) imports src/authorize/request.js (authorize, a layer above)',
  );
  t.equal(
    violationOf(at('src/errors/index.ts'), 'src/oauth/response-mode.js'),
    'src/errors/index.ts (errors) imports src/oauth/response-mode.js (oauth, a layer above)',
  );
  t.equal(violationOf(at('src/store/redis.ts'), 'fastify'), 'src/store/redis.ts imports fastify');
  t.equal(violationOf(at('src/routes/token.ts'), 'src/store/types.js'), undefined, 'down is fine');
  t.equal(violationOf(at('src/clients/registry.ts'), 'src/clients/secret.js'), undefined, 'within a layer is fine');
  t.equal(violationOf(at('src/app.ts'), 'fastify'), undefined, 'the app builds Fastify');
});

t.test('the import scanner sees every form of import', async (t) => {
  const imports = await importsOf(join(ROOT, 'src', 'app.ts'));
  t.ok(imports.includes('fastify'), 'a package import');
  t.ok(imports.includes('src/routes/token.js'), 'a relative import, resolved');
  t.ok((await importsOf(join(ROOT, 'src', 'services', 'dependencies.ts'))).includes('src/store/types.js'), 'an import type');
});

t.test('the verifier package (packages/verifier) loads only jose, node:crypto and its own files', async (t) => {
  const files = await sourceFiles(join(ROOT, 'packages', 'verifier', 'src'));
  const outside: string[] = [];
  for (const file of files) {
    const name = relative(ROOT, file);
    for (const imported of await importsOf(file)) {
      // The Fastify guard imports Fastify's types only (erased at build time; fastify is an optional peer).
      if (name === 'packages/verifier/src/fastify.ts' && imported === 'fastify') continue;
      const own = imported.startsWith('packages/verifier/src/');
      if (!own && imported !== 'jose' && imported !== 'node:crypto') outside.push(`${name} imports ${imported}`);
    }
  }
  t.ok(files.length >= 10, `read ${files.length} verifier files`);
  t.same(outside, []);
  const manifest = JSON.parse(await readFile(join(ROOT, 'packages', 'verifier', 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
    peerDependenciesMeta: Record<string, { optional: boolean }>;
  };
  t.same(Object.keys(manifest.dependencies), ['jose'], 'its one runtime dependency');
  t.same(manifest.peerDependenciesMeta, { fastify: { optional: true } }, 'Fastify only for the guard, and optional');
});

t.test('the server validates DPoP proofs with the verifier package: one implementation', async (t) => {
  const endpoint = await importsOf(join(ROOT, 'src', 'dpop', 'token-endpoint.ts'));
  t.ok(endpoint.includes('@oauth2-token-service/verifier/dpop-proof'), 'the token endpoint imports the proof check');
  t.notOk(
    (await sourceFiles(join(ROOT, 'src'))).some((file) => /dpop[-/](proof|htu|key-cache)\.ts$/.test(file)),
    'and has no copy of its own',
  );
});

t.test('the build emits no test code: what it compiles never imports test/', async (t) => {
  const build = JSON.parse(await readFile(join(ROOT, 'tsconfig.build.json'), 'utf8')) as { include: string[] };
  t.notOk(build.include.includes('test'), 'tsconfig.build.json leaves test/ out');
  const intoTests: string[] = [];
  for (const folder of build.include) {
    for (const file of await sourceFiles(join(ROOT, folder))) {
      for (const imported of await importsOf(file))
        if (imported.startsWith('test/')) intoTests.push(`${relative(ROOT, file)} imports ${imported}`);
    }
  }
  t.same(intoTests, [], 'src, bench, examples and harness import nothing of test/');
});

t.test('no source file is over 250 lines (split it by responsibility)', async (t) => {
  const long: string[] = [];
  for (const file of await sourceFiles(join(ROOT, 'src'))) {
    const lines = (await readFile(file, 'utf8')).split('\n').length - 1;
    if (lines > 250) long.push(`${relative(ROOT, file)}: ${lines} lines`);
  }
  t.same(long, []);
});

import { once } from 'node:events';
import { readdir, readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { join, posix } from 'node:path';
import t from 'tap';
import { REPOSITORY, runProgram } from '../../harness/process.js';
import { relativeLinks } from '../helpers/markdown-links.js';

/**
 * What each package's tarball holds (issue 29, items 1 and 2), as `npm pack --dry-run --json`
 * lists it (nothing is written): the server carries its docs, LICENSE and CHANGELOG.md, and
 * nothing of the tests, keys, dev state or earlier tarballs; every relative link of its
 * Markdown files resolves inside the package, so the docs of an installed package work; and
 * `npm publish --dry-run` of each package has nothing to warn about.
 * test/e2e/production.paths.test.ts installs the real tarball.
 */

async function packedFiles(args: string[] = []): Promise<string[]> {
  const pack = await runProgram('npm', ['pack', '--dry-run', '--json', ...args], REPOSITORY);
  if (pack.code !== 0) throw new Error(`npm pack --dry-run: ${pack.stderr}`);
  const [packed] = JSON.parse(pack.stdout.slice(pack.stdout.indexOf('['))) as { files: { path: string }[] }[];
  return (packed?.files ?? []).map((file) => file.path).sort();
}

/** The relative links of `markdown` (a file of the package) whose target is not in `files`: `file line N: target`. */
function linksOutside(file: string, markdown: string, files: readonly string[]): string[] {
  return relativeLinks(markdown)
    .map(({ line, target }) => ({ line, target, path: target.split('#')[0] as string }))
    .filter(({ path }) => path !== '')
    .filter(({ path }) => {
      const resolved = posix.normalize(posix.join(posix.dirname(file), path));
      if (resolved.startsWith('../')) return true;
      const folder = resolved.endsWith('/') ? resolved : `${resolved}/`;
      return !files.some((packed) => packed === resolved || packed.startsWith(folder));
    })
    .map(({ line, target }) => `${file} line ${line}: ${target}`);
}

/** The server's own files, outside its bundled dependencies. */
const SERVER_FILES =
  /^(dist\/src\/|docs\/|deploy\/|(package\.json|LICENSE|README\.md|CHANGELOG\.md|ARCHITECTURE\.md|BENCHMARKS\.md|CONTRIBUTING\.md)$)/;
const BUNDLED = /^node_modules\/(@oauth2-token-service\/verifier|jose)\//;

const serverFiles = packedFiles();

t.test("the server's tarball: its docs, LICENSE and CHANGELOG.md; no tests, keys, dev state or tarballs", async (t) => {
  const files = await serverFiles;
  for (const file of ['LICENSE', 'CHANGELOG.md', 'README.md', 'package.json']) t.ok(files.includes(file), file);
  const pages = (await readdir(join(REPOSITORY, 'docs'))).filter((name) => name.endsWith('.md'));
  t.ok(pages.length >= 10, `${pages.length} pages`);
  t.same(
    pages.filter((page) => !files.includes(`docs/${page}`)),
    [],
    'every page of docs/',
  );
  t.ok(files.includes('node_modules/@oauth2-token-service/verifier/LICENSE'), 'the bundled verifier with its LICENSE');
  t.same(
    files.filter((file) => !SERVER_FILES.test(file) && !BUNDLED.test(file)),
    [],
    'nothing else: no test/, keys/, .dev/, .tests/, tmp/, sources or .tgz',
  );
  t.same(
    files.filter((file) => /^(test|keys|\.dev|\.tests|tmp|config)\/|\.tgz$|(^|\/)\.env$/.test(file)),
    [],
    'named: none of them',
  );
});

t.test('every relative link of the Markdown files in the server tarball leads to a file in it', async (t) => {
  const files = await serverFiles;
  const markdown = files.filter((file) => file.endsWith('.md') && !file.startsWith('node_modules/'));
  t.ok(markdown.includes('README.md') && markdown.includes('docs/configuration.md'), `${markdown.length} Markdown files`);
  let links = 0;
  const outside: string[] = [];
  for (const file of markdown) {
    const text = await readFile(join(REPOSITORY, file), 'utf8');
    links += relativeLinks(text).length;
    outside.push(...linksOutside(file, text, files));
  }
  t.ok(links > 100, `${links} relative links`);
  t.same(outside, []);
});

t.test("the verifier's tarball: its code, README, LICENSE, and its README's links inside it", async (t) => {
  const files = await packedFiles(['-w', '@oauth2-token-service/verifier']);
  t.same(
    files.filter((file) => !file.startsWith('dist/')),
    ['LICENSE', 'README.md', 'package.json'],
  );
  const readme = await readFile(join(REPOSITORY, 'packages', 'verifier', 'README.md'), 'utf8');
  t.same(linksOutside('README.md', readme, files), []);
});

t.test('npm publish --dry-run: both packages, not a warning, nothing sent', async (t) => {
  // A registry of our own that knows no package: npm asks it whether the version exists and
  // needs a token for it (else it warns that one must log in), with no network.
  const requests: string[] = [];
  const registry = createServer((req, res) => {
    requests.push(`${req.method} ${req.url} ${req.headers.authorization === 'Bearer dry-run' ? 'token' : 'no token'}`);
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"Not found"}');
  }).listen(0, '127.0.0.1');
  await once(registry, 'listening');
  t.teardown(() => registry.close());
  const url = `http://127.0.0.1:${(registry.address() as { port: number }).port}/`;
  const { version } = JSON.parse(await readFile(join(REPOSITORY, 'package.json'), 'utf8')) as { version: string };
  for (const [workspace, name, path] of [
    [[], 'oauth2-token-service', '/oauth2-token-service'],
    [['-w', '@oauth2-token-service/verifier'], '@oauth2-token-service/verifier', '/@oauth2-token-service%2fverifier'],
  ] as const) {
    requests.length = 0;
    const run = await runProgram(
      'npm',
      ['publish', '--dry-run', ...workspace, '--registry', url, `--${url.slice('http:'.length)}:_authToken=dry-run`],
      REPOSITORY,
    );
    t.equal(run.code, 0, run.code === 0 ? `${name}: exit code 0` : run.stderr);
    t.equal(run.stdout, `+ ${name}@${version}\n`, name);
    t.same(
      run.stderr.split('\n').filter((line) => /^npm (warn|error)/i.test(line)),
      [],
      `${name}: no npm warn line`,
    );
    t.ok(
      requests.length > 0 && requests.every((request) => request === `GET ${path} token`),
      `${name}: only asked for: ${requests.join(', ')}`,
    );
  }
});

t.test('linksOutside: a missing file, a folder with files, a way out of the package, anchors', async (t) => {
  const files = ['README.md', 'docs/a.md', 'docs/shots/x.png'];
  const markdown = [
    '[ok](docs/a.md#part) [ok](docs/) [ok](docs/shots) [ok](#here) ![ok](docs/shots/x.png)',
    '[gone](CONTRIBUTING.md) [gone](docs/b.md#x) [out](../elsewhere.md) [empty](tests/)',
  ].join('\n');
  t.same(linksOutside('README.md', markdown, files), [
    'README.md line 2: CONTRIBUTING.md',
    'README.md line 2: docs/b.md#x',
    'README.md line 2: ../elsewhere.md',
    'README.md line 2: tests/',
  ]);
  t.same(linksOutside('docs/a.md', '[up](../README.md#x) [side](shots/x.png) [no](../../x.md)', files), ['docs/a.md line 1: ../../x.md']);
});

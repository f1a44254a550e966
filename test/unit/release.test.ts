import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { REPOSITORY } from '../../harness/repository.js';

/**
 * What a release promises before anything is packed (issue 29, item 1): the Apache License
 * 2.0 in both packages, both packages publishable at one version, the server depending on
 * the verifier it bundles at that version, the docs naming that version's tarballs, and a
 * changelog in the Keep a Changelog format with the versioning policy.
 */

interface PackageJson {
  name: string;
  version: string;
  license?: string;
  private?: boolean;
  repository?: { type: string; url: string; directory?: string };
  files?: string[];
  dependencies?: Record<string, string>;
  bundleDependencies?: string[];
  publishConfig?: { access?: string };
}

const read = (path: string) => readFile(join(REPOSITORY, path), 'utf8');
const packageJson = async (path: string) => JSON.parse(await read(path)) as PackageJson;

/** SHA-256 of https://www.apache.org/licenses/LICENSE-2.0.txt, the official text, byte for byte. */
const APACHE_2_0_SHA256 = 'cfc7749b96f63bd31c3c42b5c471bf756814053e847c10f3eb003417bc523d30';

t.test('LICENSE is the official Apache License 2.0, and the verifier package carries the same file', async (t) => {
  const license = await readFile(join(REPOSITORY, 'LICENSE'));
  t.equal(createHash('sha256').update(license).digest('hex'), APACHE_2_0_SHA256);
  t.ok((await readFile(join(REPOSITORY, 'packages', 'verifier', 'LICENSE'))).equals(license), 'packages/verifier/LICENSE is identical');
});

t.test('both packages: Apache-2.0, not private, one version, the same repository', async (t) => {
  const server = await packageJson('package.json');
  const verifier = await packageJson('packages/verifier/package.json');
  for (const pkg of [server, verifier]) {
    t.equal(pkg.license, 'Apache-2.0', `${pkg.name}: license`);
    t.equal(pkg.private, undefined, `${pkg.name}: publishable`);
    t.match(pkg.version, /^\d+\.\d+\.\d+$/, `${pkg.name}: a plain SemVer version`);
    t.ok(pkg.files?.includes('LICENSE'), `${pkg.name}: the tarball carries LICENSE`);
  }
  t.equal(verifier.version, server.version, 'released together');
  t.equal(server.dependencies?.['@oauth2-token-service/verifier'], server.version, 'the server depends on this very verifier');
  t.same(server.bundleDependencies, ['@oauth2-token-service/verifier'], 'and bundles it');
  t.same(verifier.repository, { ...server.repository, directory: 'packages/verifier' });
  t.equal(verifier.publishConfig?.access, 'public', 'a scoped package is published public');

  const lock = JSON.parse(await read('package-lock.json')) as { version: string; packages: Record<string, { version?: string }> };
  t.same(
    [lock.version, lock.packages['']?.version, lock.packages['packages/verifier']?.version],
    [server.version, server.version, server.version],
    'package-lock.json agrees',
  );
});

t.test("the docs name this version's tarballs", async (t) => {
  const { version } = await packageJson('package.json');
  const pages = ['README.md', 'packages/verifier/README.md', ...(await readdir(join(REPOSITORY, 'docs'))).map((name) => `docs/${name}`)];
  const named: string[] = [];
  for (const page of pages.filter((page) => page.endsWith('.md')))
    for (const match of (await read(page)).matchAll(/oauth2-token-service(?:-verifier)?-\d+\.\d+\.\d+\.tgz/g))
      named.push(`${page}: ${match[0]}`);
  t.ok(named.length >= 3, `${named.length} tarball names`);
  t.same(
    named.filter((line) => !line.endsWith(`-${version}.tgz`)),
    [],
    `every one is ${version}`,
  );
});

const CHANGE_TYPES = ['Added', 'Changed', 'Deprecated', 'Removed', 'Fixed', 'Security'];

t.test('CHANGELOG.md: Keep a Changelog 1.1.0, newest first, the current version, the versioning policy', async (t) => {
  const { version } = await packageJson('package.json');
  const changelog = await read('CHANGELOG.md');
  t.equal(changelog.split('\n')[0], '# Changelog');
  t.match(changelog, 'https://keepachangelog.com/en/1.1.0/');
  t.match(changelog, 'https://semver.org/spec/v2.0.0.html');

  const releases = [...changelog.matchAll(/^## \[([^\]]+)\](.*)$/gm)].map((m) => [m[1] as string, m[2] as string] as const);
  t.equal(releases[0]?.[0], 'Unreleased', 'Unreleased comes first');
  t.equal(releases[1]?.[0], version, `then ${version}, the version of package.json`);
  t.equal(releases.at(-1)?.[0], '0.1.0');
  for (const [name, rest] of releases.slice(1)) t.match(rest, /^ - \d{4}-\d{2}-\d{2}$/, `${name}: a date (ISO 8601)`);
  for (const [name] of releases) t.match(changelog, new RegExp(`^\\[${name.replace(/\./g, '\\.')}\\]: https://`, 'm'), `${name}: a link`);

  const kinds = [...changelog.matchAll(/^### (.+)$/gm)].map((m) => m[1] as string);
  t.same(
    kinds.filter((kind) => !CHANGE_TYPES.includes(kind)),
    [],
    `changes are grouped as ${CHANGE_TYPES.join(', ')}`,
  );

  const policy = changelog.slice(changelog.indexOf('\n## Versioning policy\n'));
  t.ok(policy.length > 1000, 'a versioning policy');
  for (const words of ['**The public API:**', '**Not public:**', '**Major**', '**Minor**', '**Patch**', '**Before 1.0.0 (0.x):**'])
    t.match(policy, words, `the policy says what ${words} means`);
});

import { access, cp } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { ClientRegistry } from '../../src/clients/registry.js';
import { readKeyFolder } from '../../src/keys/key-file.js';
import { tempDir } from '../helpers/keys.js';
import { DIST, REPOSITORY, runProgram } from '../../harness/process.js';

/**
 * The CLI as it runs in production: package.json, package-lock.json and the built
 * dist/src in a folder of their own, production dependencies only (no TypeScript, no
 * build step), as in the Docker image. npm needs the registry or its cache.
 */

t.test('oauth2-token-service runs from dist/ with production dependencies only', async (t) => {
  const dir = await tempDir(t, 'oauth-production-');
  for (const file of ['package.json', 'package-lock.json']) await cp(join(REPOSITORY, file), join(dir, file));
  await cp(join(DIST, 'src'), join(dir, 'dist', 'src'), { recursive: true });

  const started = Date.now();
  const install = await runProgram('npm', ['ci', '--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund', '--prefer-offline'], dir);
  t.equal(install.code, 0, install.stderr);
  t.comment(`npm ci --omit=dev took ${((Date.now() - started) / 1000).toFixed(1)} s`);
  for (const devDependency of ['typescript', 'tsx', 'tap']) {
    await t.rejects(access(join(dir, 'node_modules', devDependency)), { code: 'ENOENT' }, `${devDependency} is not installed`);
  }

  const cli = (...args: string[]) => runProgram(process.execPath, [join(dir, 'dist', 'src', 'cli', 'index.js'), ...args], dir);
  const help = await cli('--help');
  t.same([help.code, help.stderr], [0, '']);
  t.match(help.stdout, /^usage: oauth2-token-service <group> <command> \[options\]\n/);

  const rotate = await cli('keys', 'rotate', '--dir', join(dir, 'keys'));
  t.same([rotate.code, rotate.stderr], [0, '']);
  t.equal((await readKeyFolder(join(dir, 'keys'))).length, 1, 'a signing key was written');

  const add = await cli('clients', 'add', '--id', 'reports', '--scope', 'read', '--file', join(dir, 'clients.json'));
  t.same([add.code, add.stderr], [0, '']);
  t.match(add.stdout, /^added client reports to .*\nclient_secret: \S{43}\n/);
  t.ok((await ClientRegistry.load(join(dir, 'clients.json'))).get('reports'));
});

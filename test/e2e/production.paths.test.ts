import { access, cp, readdir, readFile, realpath } from 'node:fs/promises';
import { basename, join, sep } from 'node:path';
import t, { type Test } from 'tap';
import { dockerfileInstructions, type Instruction } from '../helpers/dockerfile.js';
import { freePort } from '../../harness/ports.js';
import { REPOSITORY, runProgram, startServerProcess } from '../../harness/process.js';
import { tempDir } from '../helpers/keys.js';
import { brokenLinks } from '../helpers/markdown-links.js';
import { installPackedTarball, NPM_QUIET } from '../helpers/packed-install.js';

/**
 * Every way the docs start the server in production, each in a fresh copy with production
 * dependencies only, so no compiler, no tsx and no tap is there to lean on:
 *   - the packed tarball: `npm install --omit=dev <tgz>`, then `node_modules/.bin/oauth2-token-service serve`;
 *     the installed package carries LICENSE, CHANGELOG.md and docs/, whose links all resolve in it,
 *     and `--version` answers;
 *   - a checkout: `npm ci --omit=dev` succeeds without a build and `npm start` says to build
 *     first; `npm ci && npm run build && npm prune --omit=dev && npm start` serves;
 *   - the Docker image's runtime stage, replayed from the Dockerfile (no Docker engine here).
 * npm needs the registry or its cache.
 */

t.setTimeout(360_000);

const absent = (path: string) =>
  access(path).then(
    () => false,
    () => true,
  );

const { version } = JSON.parse(await readFile(join(REPOSITORY, 'package.json'), 'utf8')) as { version: string };

async function assertNoDevDependencies(t: Test, dir: string): Promise<void> {
  for (const devDependency of ['typescript', 'tsx', 'tap', 'esbuild'])
    t.ok(await absent(join(dir, 'node_modules', devDependency)), `no ${devDependency}`);
}

/** With a key and a client of its own, the server answers /readyz and issues a token. */
async function assertServes(
  t: Test,
  start: { command: readonly [string, ...string[]]; cwd: string; env?: Record<string, string> },
  cli: (...args: string[]) => Promise<{ code: number | null; stdout: string; stderr: string }>,
): Promise<void> {
  const keysDir = join(start.cwd, 'keys');
  const rotate = await cli('keys', 'rotate', '--dir', keysDir);
  t.same([rotate.code, rotate.stderr], [0, ''], 'keys rotate');
  const clientsFile = join(start.cwd, 'clients.json');
  const add = await cli('clients', 'add', '--id', 'reports', '--scope', 'read', '--file', clientsFile);
  t.same([add.code, add.stderr], [0, ''], 'clients add');
  const secret = /client_secret: (\S+)/.exec(add.stdout)?.[1] as string;
  const port = await freePort();
  const server = await startServerProcess(
    t,
    {
      PORT: String(port),
      ISSUER: `http://127.0.0.1:${port}`,
      KEYS_DIR: keysDir,
      CLIENTS_FILE: clientsFile,
      LOG_LEVEL: 'warn',
      ...start.env,
    },
    { command: start.command, cwd: start.cwd, readyPath: '/readyz' },
  );
  const res = await fetch(`${server.baseUrl}/oauth2/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`reports:${secret}`).toString('base64')}`,
    },
    body: 'grant_type=client_credentials&scope=read',
  });
  t.equal(res.status, 200, 'a token');
  t.match(await res.json(), { token_type: 'bearer', scope: 'read' });
  await server.stop();
}

t.test('the packed tarball: npm install --omit=dev <tgz>, then node_modules/.bin/oauth2-token-service serve', async (t) => {
  const { app, filename, files: paths, bin } = await installPackedTarball(t);
  t.ok(paths.includes('dist/src/main.js') && paths.includes('dist/src/cli/index.js'), 'the server and the command');
  t.ok(paths.includes('node_modules/@oauth2-token-service/verifier/dist/dpop-proof.js'), 'the verifier package, bundled');
  t.ok(
    paths.includes('deploy/prometheus/alerts.yml') && paths.includes('deploy/prometheus/alerts.test.yml'),
    'the alerting rules and their tests',
  );
  t.equal(filename, `oauth2-token-service-${version}.tgz`, 'the name the README gives');
  t.same(
    paths.filter((p) => /(^|\/)test\//.test(p) || (p.endsWith('.ts') && !p.endsWith('.d.ts')) || /(^|\/)keys\/[^/]+\.json$/.test(p)),
    [],
    'no tests, no TypeScript sources, no keys',
  );

  await assertNoDevDependencies(t, app);

  const npx = ['npx', '--no-install', 'oauth2-token-service'] as const;
  // npm's own notices (this machine's npmrc) are npm's, not the command's.
  const cli = async (...args: string[]) => {
    const run = await runProgram(npx[0], [...npx.slice(1), ...args], app);
    return { ...run, stderr: run.stderr.replace(/^npm warn .*\n/gm, '') };
  };
  const help = await cli('--help');
  t.same([help.code, help.stdout.split('\n')[0]], [0, 'usage: oauth2-token-service serve'], 'npx --no-install finds the installed command');

  const installed = await realpath(join(app, 'node_modules', 'oauth2-token-service'));
  for (const file of [
    'LICENSE',
    'CHANGELOG.md',
    'README.md',
    'docs/configuration.md',
    'node_modules/@oauth2-token-service/verifier/LICENSE',
  ])
    t.ok(!(await absent(join(installed, file))), `the installed package has ${file}`);
  const pages = (await readdir(join(installed, 'docs'))).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`);
  t.ok(pages.length >= 10, `${pages.length} pages in docs/`);
  t.same(await brokenLinks(installed, ['README.md', 'CHANGELOG.md', ...pages]), [], 'every link of the README and the docs resolves in it');
  for (const flag of ['--version', '-V']) {
    const run = await runProgram(bin, [flag], app);
    t.same([run.code, run.stdout, run.stderr], [0, `${version}\n`, ''], `node_modules/.bin/oauth2-token-service ${flag}`);
  }
  const serveHelp = await runProgram(bin, ['serve', '--help'], app);
  t.equal(serveHelp.code, 0);
  t.match(serveHelp.stdout, `  pages      ${installed}${sep}docs${sep} (one page per topic`, 'serve --help names the installed docs');
  // The server as the docs run it: the installed binary itself, so signals reach it (production.signals.test.ts).
  await assertServes(t, { command: [bin, 'serve'], cwd: app }, cli);
});

/** The files of a fresh clone: what git tracks, as the working tree has them. */
async function checkoutCopy(t: Test): Promise<string> {
  const dir = join(await tempDir(t, 'oauth-checkout-'), 'oauth2-token-service');
  const listed = await runProgram('git', ['ls-files', '-z'], REPOSITORY);
  t.equal(listed.code, 0, listed.stderr);
  for (const file of listed.stdout.split('\0').filter(Boolean)) {
    if (await absent(join(REPOSITORY, file))) continue; // deleted in the working tree, not yet committed
    await cp(join(REPOSITORY, file), join(dir, file));
  }
  return dir;
}

t.test('a checkout: npm start never builds; npm ci && npm run build && npm prune --omit=dev && npm start serves', async (t) => {
  const checkout = await checkoutCopy(t);

  const production = await runProgram('npm', ['ci', '--omit=dev', ...NPM_QUIET], checkout);
  t.equal(production.code, 0, `npm ci --omit=dev on a checkout installs without building: ${production.stderr}`);
  t.notMatch(production.stderr, /EBADENGINE/, 'no engine warning');
  const unbuilt = await runProgram('npm', ['start', '--silent'], checkout);
  t.same(
    [unbuilt.code, unbuilt.stderr],
    [1, 'dist/ is missing: build first (npm ci && npm run build && npm prune --omit=dev), then npm start\n'],
    'npm start without dist/: one line saying to build first',
  );

  const started = Date.now();
  for (const step of [
    ['ci', ...NPM_QUIET],
    ['run', 'build'],
    ['prune', '--omit=dev', ...NPM_QUIET],
  ]) {
    const run = await runProgram('npm', step, checkout);
    t.equal(run.code, 0, `npm ${step.join(' ')}: ${run.stderr}`);
  }
  t.comment(`npm ci, build and prune took ${((Date.now() - started) / 1000).toFixed(1)} s`);
  await assertNoDevDependencies(t, checkout);
  const cli = (...args: string[]) => runProgram(process.execPath, [join(checkout, 'dist', 'src', 'cli', 'index.js'), ...args], checkout);
  await assertServes(t, { command: ['npm', 'start'], cwd: checkout }, cli);
});

/** The Dockerfile's runtime stage: its instructions, continuation lines joined, comments dropped. */
async function runtimeStage(): Promise<Instruction[]> {
  const instructions = await dockerfileInstructions();
  return instructions.slice(instructions.findIndex((i) => i.keyword === 'FROM' && i.args.endsWith('AS runtime')));
}

t.test("the Docker image's runtime stage, replayed: its COPY lines and its npm ci, then the image's CMD", async (t) => {
  const image = join(await tempDir(t, 'oauth-image-'), 'app');
  const stage = await runtimeStage();
  for (const copy of stage.filter((i) => i.keyword === 'COPY')) {
    const words = copy.args.split(' ');
    const fromBuild = words[0] === '--from=build';
    const paths = words.filter((w) => !w.startsWith('--'));
    const target = paths.pop() as string;
    for (const source of paths) {
      // The build stage's /app is this repository after `npm run build`.
      const from = fromBuild ? join(REPOSITORY, source.replace(/^\/app\//, '')) : join(REPOSITORY, source);
      const to = target.endsWith('/') ? join(image, target, basename(source)) : join(image, target);
      await cp(from, to, { recursive: true });
    }
  }
  const install = stage.find((i) => i.keyword === 'RUN' && i.args.startsWith('npm ci'))?.args.split(' && ')[0] ?? '';
  t.match(install, /^npm ci --omit=dev --ignore-scripts/, 'production dependencies only, no install scripts');
  const ci = await runProgram('npm', [...install.split(' ').slice(1), '--prefer-offline'], image, { NODE_ENV: 'production' });
  t.equal(ci.code, 0, ci.stderr);
  await assertNoDevDependencies(t, image);

  const cmd = JSON.parse(stage.find((i) => i.keyword === 'CMD')?.args ?? '[]') as string[];
  t.same(cmd, ['oauth2-token-service', 'serve']);
  // The image links the command onto PATH: here, the same file.
  const command = join(image, 'dist', 'src', 'cli', 'index.js');
  t.ok(!(await absent(command)), 'the command the image links exists');
  const cli = (...args: string[]) => runProgram(process.execPath, [command, ...args], image);
  t.same(await cli('--version'), { code: 0, stdout: `${version}\n`, stderr: '' }, 'the image answers --version');
  for (const file of ['LICENSE', 'CHANGELOG.md', 'docs/configuration.md'])
    t.ok(!(await absent(join(image, file))), `the image has ${file}`);
  await assertServes(t, { command: [process.execPath, command, ...cmd.slice(1)], cwd: image, env: { NODE_ENV: 'production' } }, cli);
});

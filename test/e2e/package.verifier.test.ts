import { once } from 'node:events';
import { cp, mkdir, symlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { join } from 'node:path';
import t from 'tap';
import { tempDir } from '../helpers/keys.js';
import { REPOSITORY, runProgram } from '../../harness/process.js';
import { basic, buildTestServer, FORM_HEADERS, ISSUER, SECRETS } from '../helpers/server.js';

/**
 * `npm pack` makes a package a resource server can install: its "prepare" script builds
 * dist/, "files" ships dist/src and the README only, and `oauth2-token-service/verifier`
 * verifies a real token in a fresh project. The pack runs in a copy of the sources, so
 * the build it triggers never rewrites the dist/ other tests are running.
 */

/** Every source `npm run build` reads (src, bench, examples, test/helpers); never keys, dist, or node_modules (linked). */
async function sourceCopy(dir: string): Promise<string> {
  const copy = join(dir, 'source');
  const skipped = new Set(['node_modules', 'dist', 'keys', 'coverage', '.git', '.tap'].map((name) => join(REPOSITORY, name)));
  await cp(REPOSITORY, copy, { recursive: true, filter: (source) => !skipped.has(source) });
  await symlink(join(REPOSITORY, 'node_modules'), join(copy, 'node_modules'), 'dir');
  return copy;
}

const VERIFY = `import { createVerifier } from '@oauth2-token-service/verifier';
const [issuer, jwksUri, ...tokens] = process.argv.slice(2);
const verifier = createVerifier({ issuer, audience: issuer, jwksUri });
for (const token of tokens) {
  try {
    const claims = await verifier.verify(token, { requiredScopes: ['read'] });
    console.log(JSON.stringify({ sub: claims.sub, scope: claims.scope, iss: claims.iss }));
  } catch (err) {
    console.log(JSON.stringify({ error: err.code, status: err.status }));
  }
}
`;

// npm pack runs the build, and npm install resolves the dependencies: about 30 s on a quiet
// host and 50 s with two busy loops beside it; the file gets twice the default limit.
t.setTimeout(480_000);

t.test('npm pack, npm install <tarball>, and oauth2-token-service/verifier verifies a real token', async (t) => {
  const dir = await tempDir(t, 'oauth-package-');
  const started = Date.now();
  const seconds = () => ((Date.now() - started) / 1000).toFixed(1);

  const pack = await runProgram('npm', ['pack', '--json', '--pack-destination', dir], await sourceCopy(dir));
  t.equal(pack.code, 0, pack.stderr);
  t.comment(`npm pack (with its build) took ${seconds()} s`);
  const [packed] = JSON.parse(pack.stdout.slice(pack.stdout.indexOf('['))) as { filename: string; files: { path: string }[] }[];
  const paths = packed?.files.map((f) => f.path) ?? [];
  t.ok(paths.includes('dist/src/verifier/index.js') && paths.includes('dist/src/verifier/index.d.ts'), 'the verifier and its types');
  t.ok(paths.includes('dist/src/cli/index.js'), 'the command');
  t.same(
    paths.filter((p) => !(p.startsWith('dist/src/') || p === 'package.json' || p === 'README.md')),
    [],
    'nothing but dist/src, package.json and the README',
  );
  t.same(
    paths.filter((p) => /(^|\/)test\//.test(p) || (p.endsWith('.ts') && !p.endsWith('.d.ts')) || /(^|\/)keys\/[^/]+\.json$/.test(p)),
    [],
    'no tests, no TypeScript sources, no key files',
  );

  const app = join(dir, 'app');
  await mkdir(app);
  await writeFile(join(app, 'package.json'), JSON.stringify({ name: 'resource-server', private: true, type: 'module' }));
  const tarball = join(dir, packed?.filename as string);
  const install = await runProgram('npm', ['install', tarball, '--prefer-offline', '--no-audit', '--no-fund'], app);
  t.equal(install.code, 0, install.stderr);
  t.comment(`npm install of the tarball: done at ${seconds()} s`);
  await writeFile(join(app, 'verify.mjs'), VERIFY);

  // A real token from the server, and its JWKS served over HTTP as the issuer would.
  const server = await buildTestServer(t);
  const res = await server.app.inject({
    method: 'POST',
    url: '/oauth2/token',
    headers: { ...FORM_HEADERS, authorization: basic('service', SECRETS.service) },
    payload: 'grant_type=client_credentials&scope=read',
  });
  const token = (res.json() as { access_token: string }).access_token;
  const jwks = createServer((_req, reply) =>
    reply.setHeader('content-type', 'application/json').end(JSON.stringify(server.keystore.jwksAt(Math.floor(Date.now() / 1000)))),
  );
  jwks.listen(0, '127.0.0.1');
  await once(jwks, 'listening');
  t.teardown(() => jwks.close());
  const jwksUri = `http://127.0.0.1:${(jwks.address() as { port: number }).port}/jwks.json`;

  const tampered = `${token.slice(0, -4)}AAAA`;
  const verify = await runProgram(process.execPath, ['verify.mjs', ISSUER, jwksUri, token, tampered], app);
  t.equal(verify.code, 0, verify.stderr);
  t.same(
    verify.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line)),
    [
      { sub: 'service', scope: 'read', iss: ISSUER },
      { error: 'invalid_token', status: 401 },
    ],
  );

  const bin = await runProgram(join(app, 'node_modules', '.bin', 'oauth2-token-service'), ['--help'], app);
  t.same([bin.code, bin.stdout.split('\n')[0]], [0, 'usage: oauth2-token-service <group> <command> [options]'], 'the bin entry runs');
  t.comment(`pack, install and verify: ${seconds()} s`);
});

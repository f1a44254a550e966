import { once } from 'node:events';
import { mkdir, readdir, stat, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { join } from 'node:path';
import t from 'tap';
import { REPOSITORY, runProgram } from '../../harness/process.js';
import { dpopKey, dpopProof } from '../helpers/dpop.js';
import { tempDir } from '../helpers/keys.js';
import { basic, buildTestServer, FORM_HEADERS, ISSUER, SECRETS } from '../helpers/server.js';

/**
 * What a resource server gets: `npm pack -w @oauth2-token-service/verifier` makes a tarball
 * of the verifier alone (built by `npm run build`), installed into an empty project with
 * production dependencies only. It must weigh what jose weighs, verify a Bearer and a
 * DPoP-bound token of the real server, and serve RFC 9728 metadata, without Fastify.
 */

const API = 'https://api.example.com/data';

const RESOURCE_SERVER = `import { createServer } from 'node:http';
import { createVerifier, protectedResourceMetadata, PROTECTED_RESOURCE_WELL_KNOWN } from '@oauth2-token-service/verifier';
const [issuer, jwksUri, bearer, tampered, bound, proof] = process.argv.slice(2);
const verifier = createVerifier({ issuer, audience: issuer, jwksUri, dpop: {} });
const outcome = (promise) => promise.then(
  (claims) => ({ sub: claims.sub, scope: claims.scope, jkt: claims.cnf?.jkt ?? null }),
  (err) => ({ error: err.code, status: err.status, challenge: err.wwwAuthenticate }),
);
const results = [
  await outcome(verifier.verify(bearer, { requiredScopes: ['read'] })),
  await outcome(verifier.verify(tampered)),
  await outcome(verifier.verify(bound, { dpop: { proof, method: 'GET', url: '${API}' } })),
  await outcome(verifier.verify(bound)),
];
const metadata = protectedResourceMetadata({ resource: 'https://api.example.com/', authorizationServers: [issuer], scopesSupported: ['read'] });
const server = createServer((req, res) => {
  if (req.url === PROTECTED_RESOURCE_WELL_KNOWN) res.setHeader('content-type', 'application/json').end(JSON.stringify(metadata));
  else res.writeHead(404).end();
}).listen(0, '127.0.0.1', async () => {
  const answer = await fetch('http://127.0.0.1:' + server.address().port + PROTECTED_RESOURCE_WELL_KNOWN);
  results.push({ status: answer.status, metadata: await answer.json() });
  server.close();
  console.log(JSON.stringify(results));
});
`;

/** Every package under node_modules (scoped ones counted one by one), and the bytes of the folder. */
async function installed(dir: string): Promise<{ packages: string[]; bytes: number }> {
  const packages: string[] = [];
  let bytes = 0;
  const walk = async (folder: string): Promise<void> => {
    for (const entry of await readdir(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) await walk(path);
      else bytes += (await stat(path)).size;
    }
  };
  const modules = join(dir, 'node_modules');
  for (const entry of await readdir(modules, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name.startsWith('.')) continue;
    if (entry.name.startsWith('@')) packages.push(...(await readdir(join(modules, entry.name))).map((name) => `${entry.name}/${name}`));
    else packages.push(entry.name);
  }
  await walk(modules);
  return { packages: packages.sort(), bytes };
}

t.test('npm pack -w @oauth2-token-service/verifier: a tarball of its own, installed with jose alone', async (t) => {
  const dir = await tempDir(t, 'oauth-verifier-package-');
  const pack = await runProgram('npm', ['pack', '-w', '@oauth2-token-service/verifier', '--json', '--pack-destination', dir], REPOSITORY);
  t.equal(pack.code, 0, pack.stderr);
  const [packed] = JSON.parse(pack.stdout.slice(pack.stdout.indexOf('['))) as { filename: string; files: { path: string }[] }[];
  const paths = packed?.files.map((f) => f.path) ?? [];
  t.ok(
    paths.includes('dist/index.js') && paths.includes('dist/index.d.ts') && paths.includes('dist/fastify.js'),
    'the verifier, its types, the guard',
  );
  t.same(
    paths.filter(
      (p) =>
        !((p.startsWith('dist/') && (p.endsWith('.js') || p.endsWith('.d.ts'))) || ['package.json', 'README.md', 'LICENSE'].includes(p)),
    ),
    [],
    'nothing but dist/*.js and *.d.ts, package.json, the README and the LICENSE',
  );

  const app = join(dir, 'resource-server');
  await mkdir(app);
  await writeFile(join(app, 'package.json'), JSON.stringify({ name: 'resource-server', private: true, type: 'module' }));
  const started = Date.now();
  const install = await runProgram(
    'npm',
    ['install', '--omit=dev', join(dir, packed?.filename as string), '--prefer-offline', '--no-audit', '--no-fund'],
    app,
  );
  t.equal(install.code, 0, install.stderr);
  t.notMatch(install.stderr, /EBADENGINE/, 'no engine warning');
  const { packages, bytes } = await installed(app);
  t.comment(
    `npm install --omit=dev of the verifier: ${((Date.now() - started) / 1000).toFixed(1)} s, ${packages.length} packages, ${bytes} bytes`,
  );
  t.same(packages, ['@oauth2-token-service/verifier', 'jose'], 'the verifier and jose: no Fastify, no server dependencies');
  t.ok(packages.length <= 3, `${packages.length} packages (at most 3)`);
  t.ok(bytes < 1_000_000, `${bytes} bytes in node_modules (under 1 MB)`);

  // Tokens of the real server, its JWKS served over HTTP as the issuer would.
  const server = await buildTestServer(t, {
    clients: [
      {
        client_id: 'service',
        client_secret_hash: (await import('../../src/clients/secret.js')).hashClientSecret(SECRETS.service),
        grant_types: ['client_credentials'],
        scope: 'read',
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
  });
  const tokenRequest = (headers: Record<string, string> = {}) =>
    server.app.inject({
      method: 'POST',
      url: '/oauth2/token',
      headers: { ...FORM_HEADERS, authorization: basic('service', SECRETS.service), ...headers },
      payload: 'grant_type=client_credentials&scope=read',
    });
  const bearer = ((await tokenRequest()).json() as { access_token: string }).access_token;
  const key = await dpopKey();
  const now = Math.floor(server.clock.now / 1000);
  const proofForToken = await dpopProof(key, { htu: `${ISSUER}/oauth2/token`, iat: now });
  const boundAnswer = await tokenRequest({ dpop: proofForToken });
  t.equal(boundAnswer.statusCode, 200, boundAnswer.body);
  const bound = (boundAnswer.json() as { access_token: string; token_type: string }).access_token;
  const proofForApi = await dpopProof(key, { htm: 'GET', htu: API, iat: Math.floor(Date.now() / 1000), accessToken: bound });

  const jwks = createServer((_req, reply) =>
    reply.setHeader('content-type', 'application/json').end(JSON.stringify(server.keystore.jwksAt(Math.floor(Date.now() / 1000)))),
  );
  jwks.listen(0, '127.0.0.1');
  await once(jwks, 'listening');
  t.teardown(() => jwks.close());
  const jwksUri = `http://127.0.0.1:${(jwks.address() as { port: number }).port}/jwks.json`;

  await writeFile(join(app, 'resource-server.mjs'), RESOURCE_SERVER);
  const tampered = `${bearer.slice(0, -6)}${bearer.endsWith('AAAAAA') ? 'BBBBBB' : 'AAAAAA'}`;
  const run = await runProgram(process.execPath, ['resource-server.mjs', ISSUER, jwksUri, bearer, tampered, bound, proofForApi], app);
  t.equal(run.code, 0, run.stderr);
  const [valid, forged, withProof, boundAsBearer, metadata] = JSON.parse(run.stdout) as Record<string, unknown>[];
  t.same(valid, { sub: 'service', scope: 'read', jkt: null }, 'a Bearer token');
  t.match(forged, { error: 'invalid_token', status: 401 }, 'a tampered one');
  t.same(withProof, { sub: 'service', scope: 'read', jkt: key.jkt }, 'a DPoP-bound token with its proof');
  t.match(
    boundAsBearer,
    { error: 'invalid_token', status: 401, challenge: /^Bearer .*, DPoP .*algs="/ },
    'the bound token as Bearer: told to use DPoP',
  );
  t.same(metadata, {
    status: 200,
    metadata: {
      resource: 'https://api.example.com/',
      authorization_servers: [ISSUER],
      scopes_supported: ['read'],
      bearer_methods_supported: ['header'],
    },
  });
});

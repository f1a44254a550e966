import { join } from 'node:path';
import t from 'tap';
import { freePort } from '../../harness/ports.js';
import { CLI, DIST, runNode, startServerProcess } from '../../harness/process.js';
import { keysDirWithSigningKey, tempDir } from '../helpers/keys.js';
import { writeRegistryFiles } from '../helpers/registry-files.js';
import { readyLogged } from '../helpers/server-log.js';

/**
 * The built server as a process (dist/): production refuses what it cannot serve right, with
 * one line per problem and exit code 1 (src/config/production.ts, test/unit/config.production.test.ts);
 * `serve` listens on every interface by default and `npm run dev` on 127.0.0.1 only. Requests
 * go to 127.0.0.1 alone. The installed package (production without NODE_ENV) is
 * test/e2e/production.signals.test.ts.
 */

const NO_ISSUER =
  'ISSUER is not set: set it to the public https URL of this server (ISSUER=https://auth.example.com), the iss of every token and the base of every endpoint URL\n';

t.test('serve without ISSUER in production (NODE_ENV=production): exit 1 and the one line', async (t) => {
  const machine = { client_id: 'reports', client_secret_hash: `sha256:${'A'.repeat(43)}`, grant_types: ['client_credentials'] };
  const { clientsFile } = await writeRegistryFiles(t, [machine]);
  const env = {
    NODE_ENV: 'production',
    KEYS_DIR: await keysDirWithSigningKey(t),
    CLIENTS_FILE: clientsFile,
    PORT: String(await freePort()),
  };
  const run = await runNode(CLI, ['serve'], env);
  t.same([run.code, run.stderr, run.stdout], [1, NO_ISSUER, ''], 'nothing else: no log line, no stack');

  const web = { client_id: 'web', token_endpoint_auth_method: 'none', redirect_uris: ['https://web.example/cb'], scope: 'read' };
  const browser = await writeRegistryFiles(t, [web]);
  const insecure = await runNode(CLI, ['serve'], { ...env, ISSUER: 'http://auth.example.com', CLIENTS_FILE: browser.clientsFile });
  t.same(
    [insecure.code, insecure.stderr],
    [
      1,
      'ISSUER must use https in production (http only on localhost, 127.0.0.1 or [::1]): set ISSUER=https://auth.example.com, the URL clients reach (TLS may end at a proxy in front)\n' +
        'SESSION_SECRET is not set, and users sign in with a browser (the client web of CLIENTS_FILE has the authorization_code grant): set SESSION_SECRET="$(openssl rand -base64 48)", the same on every instance\n',
    ],
    'every problem at once',
  );
});

t.test('the WORKERS primary in production refuses to start without SESSION_SECRET instead of making one', async (t) => {
  // The primary refuses before it forks or connects: nothing listens at the Redis address.
  const run = await runNode('src/main.js', [], {
    NODE_ENV: 'production',
    ISSUER: 'https://auth.example.com',
    WORKERS: '2',
    REDIS_URL: `redis://127.0.0.1:${await freePort()}`,
    PORT: String(await freePort()),
  });
  t.same(
    [run.code, run.stderr, run.stdout],
    [
      1,
      'SESSION_SECRET is not set, and WORKERS starts 2 processes that must share one key (sign-in sessions, signed forms, DPoP nonces): set SESSION_SECRET="$(openssl rand -base64 48)", the same on every instance\n',
      '',
    ],
  );
});

t.test('serve listens on 0.0.0.0 unless HOST says otherwise', async (t) => {
  const port = await freePort();
  // HOST blank counts as unset: the harness's 127.0.0.1 does not apply.
  const server = await startServerProcess(
    t,
    { NODE_ENV: 'production', ISSUER: `http://127.0.0.1:${port}`, KEYS_DIR: await keysDirWithSigningKey(t), PORT: String(port), HOST: '' },
    { command: [process.execPath, join(DIST, CLI), 'serve'] },
  );
  t.match(await readyLogged(server), { listen: `0.0.0.0:${port}`, pid: server.child.pid, issuer: `http://127.0.0.1:${port}` });
  t.equal((await fetch(`${server.baseUrl}/healthz`)).status, 200, 'reached on 127.0.0.1 like any interface');
  await server.stop();
});

t.test('npm run dev (dist/src/dev.js) stays permissive and on 127.0.0.1, NODE_ENV=production or not', async (t) => {
  const port = await freePort();
  const cwd = await tempDir(t);
  const server = await startServerProcess(
    t,
    { NODE_ENV: 'production', KEYS_DIR: join(cwd, 'keys'), PORT: String(port), HOST: '', LOG_LEVEL: 'info' },
    { script: 'src/dev.js', cwd },
  );
  t.match(
    await readyLogged(server),
    { listen: `127.0.0.1:${port}`, issuer: `http://localhost:${port}` },
    'no ISSUER, a demo code-flow client, no SESSION_SECRET',
  );
  await server.stop();
});

import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { loadConfig } from '../../src/config/index.js';
import { startServer } from '../../src/server.js';
import { freePort } from '../../harness/ports.js';
import { keysDirWithSigningKey } from '../helpers/keys.js';
import { capturedLogger } from '../helpers/logs.js';
import { writeRegistryFiles } from '../helpers/registry-files.js';
import { spiffeIssuer } from '../helpers/workload-issuers.js';

/**
 * WORKLOAD_TRUSTS_FILE in a started server (src/server.ts, src/registries.ts): read at start
 * with its warnings, served at the token endpoint and in the metadata, reloaded on SIGHUP.
 */

const MCP = 'https://mcp.example.com';
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

t.test('a started server reads WORKLOAD_TRUSTS_FILE, warns at start, serves workloads, and reloads the file on SIGHUP', async (t) => {
  const { clientsFile, usersFile, dir } = await writeRegistryFiles(t, []);
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const spiffe = await spiffeIssuer({ audience: issuer, nowSeconds: () => Math.floor(Date.now() / 1000) });
  const trustsFile = join(dir, 'trusts.json');
  const resourcesFile = join(dir, 'resources.json');
  const mesh = {
    id: 'mesh',
    issuer: spiffe.issuer,
    jwks: spiffe.jwks,
    rules: [{ sub: 'spiffe://example.org/*', resources: [MCP, 'https://gone.example.com'], scope: 'tools:call' }],
  };
  await writeFile(trustsFile, JSON.stringify({ trusts: [mesh] }));
  await writeFile(resourcesFile, JSON.stringify({ resources: [{ resource: MCP, scope: 'tools:call' }] }));
  const log = capturedLogger('info');
  const config = loadConfig({
    PORT: String(port),
    HOST: '127.0.0.1',
    ISSUER: issuer,
    KEYS_DIR: await keysDirWithSigningKey(t),
    CLIENTS_FILE: clientsFile,
    USERS_FILE: usersFile,
    RESOURCES_FILE: resourcesFile,
    WORKLOAD_TRUSTS_FILE: trustsFile,
    WORKLOAD_TRUSTS_ALLOW_INSECURE: 'true',
  });
  const server = await startServer(config, { logger: log.logger as never });
  t.teardown(() => server.stop());
  const lines = () => log.lines().map((line) => JSON.parse(line) as Record<string, unknown>);
  t.same(
    lines()
      .filter((line) => line.level === 40 && /^(WORKLOAD_TRUSTS|workload trust)/.test(String(line.msg)))
      .map((line) => line.msg),
    [
      'WORKLOAD_TRUSTS_ALLOW_INSECURE=true: workload issuers and their keys may be fetched over http:// and from loopback or private addresses; for development and tests only',
      'workload trust "mesh" names the resource https://gone.example.com, which RESOURCES_FILE does not register: no token is issued for it',
    ],
  );

  const token = async () =>
    fetch(`${issuer}/oauth2/token`, {
      method: 'POST',
      body: new URLSearchParams({ grant_type: JWT_BEARER, assertion: await spiffe.sign(), resource: MCP }),
    });
  const grants = async () =>
    ((await (await fetch(`${issuer}/.well-known/oauth-authorization-server`)).json()) as { grant_types_supported: string[] })
      .grant_types_supported;
  const issued = await token();
  t.equal(issued.status, 200);
  t.match(await issued.json(), { token_type: 'bearer', scope: 'tools:call' });
  t.same(await grants(), [JWT_BEARER], 'no client has a grant: the workloads’ is the one listed');

  await writeFile(trustsFile, JSON.stringify({ trusts: [] }));
  process.kill(process.pid, 'SIGHUP');
  for (let i = 0; i < 200 && !lines().some((line) => line.msg === 'workloads reloaded'); i += 1)
    await new Promise((r) => setTimeout(r, 10));
  t.match(
    lines().find((line) => line.msg === 'workloads reloaded'),
    { reason: 'SIGHUP', file: trustsFile, workloads: 0 },
  );
  const refused = await token();
  t.equal(refused.status, 401, 'without a trust: a client is needed, as before');
  t.same(await refused.json(), { error: 'invalid_client', error_description: 'client authentication is required' });
  t.same(await grants(), []);
});

import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { hashClientSecret } from '../../src/clients/secret.js';
import { keysDirWithSigningKey, tempDir } from '../helpers/keys.js';
import { freePort } from '../../harness/ports.js';
import { startServerProcess } from '../../harness/process.js';

const SECRET = 'resource-server-secret-0123456789abcdefghijklm';

t.test('the example resource server accepts our tokens offline (examples/resource-server)', async (t) => {
  const clientsFile = join(await tempDir(t), 'clients.json');
  await writeFile(
    clientsFile,
    JSON.stringify({
      clients: [
        { client_id: 'svc', client_secret_hash: hashClientSecret(SECRET), grant_types: ['client_credentials'], scope: 'read write' },
      ],
    }),
  );
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  await startServerProcess(t, { PORT: String(port), ISSUER: issuer, KEYS_DIR: await keysDirWithSigningKey(t), CLIENTS_FILE: clientsFile });
  const api = await startServerProcess(
    t,
    { PORT: String(await freePort()), ISSUER: issuer, LOG_LEVEL: 'warn' },
    { script: 'examples/resource-server.js', readyPath: '/api/me', anyStatus: true },
  );

  const token = async (scope: string) => {
    const res = await fetch(`${issuer}/oauth2/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`svc:${SECRET}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: `grant_type=client_credentials&scope=${scope}`,
    });
    return ((await res.json()) as { access_token: string }).access_token;
  };
  const me = (authorization?: string) => fetch(`${api.baseUrl}/api/me`, { headers: authorization ? { authorization } : {} });

  const ok = await me(`Bearer ${await token('read')}`);
  t.equal(ok.status, 200);
  t.same(await ok.json(), { sub: 'svc', scope: 'read' });
  const missing = await me();
  t.equal(missing.status, 401);
  t.equal(missing.headers.get('www-authenticate'), `Bearer realm="${issuer}", scope="read"`);
  const weak = await me(`Bearer ${await token('write')}`);
  t.equal(weak.status, 403);
  t.same(await weak.json(), { error: 'insufficient_scope', error_description: 'the access token lacks the scope read' });
});

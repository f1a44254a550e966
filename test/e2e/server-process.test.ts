import { once } from 'node:events';
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import type { Test } from 'tap';
import t from 'tap';
import { hashClientSecret } from '../../src/clients/secret.js';
import { defaultThreadPoolSize } from '../../src/config/signing.js';
import { rotateKeys } from '../../src/keys/rotation.js';
import { keysDirWithSigningKey, tempDir } from '../helpers/keys.js';
import { freePort } from '../../harness/ports.js';
import { runNode, startServerProcess } from '../../harness/process.js';
import { rawExchange } from '../helpers/raw-http.js';
import { startPrivateRedis } from '../../harness/redis.js';

const SECRET = 'process-test-secret-0123456789abcdefghijklmnop';
const CLIENTS = {
  clients: [{ client_id: 'svc', client_secret_hash: hashClientSecret(SECRET), grant_types: ['client_credentials'], scope: 'read' }],
};

async function clientsFile(t: Test): Promise<string> {
  const file = join(await tempDir(t), 'clients.json');
  await writeFile(file, JSON.stringify(CLIENTS));
  return file;
}

const RESOURCE = 'https://mcp.example.com/mcp';

async function resourcesFile(t: Test, resources: unknown[]): Promise<string> {
  const file = join(await tempDir(t), 'resources.json');
  await writeFile(file, JSON.stringify({ resources }));
  return file;
}

async function token(baseUrl: string, body = 'grant_type=client_credentials'): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${baseUrl}/oauth2/token`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`svc:${SECRET}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body,
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const jwksKids = async (baseUrl: string) =>
  ((await (await fetch(`${baseUrl}/.well-known/jwks.json`)).json()) as { keys: { kid: string }[] }).keys.map((k) => k.kid).sort();

async function eventually(check: () => Promise<boolean>, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

t.test('the server process refuses to start on bad input, with a clear message', async (t) => {
  const emptyKeys = await tempDir(t);
  const noKeys = await runNode('src/main.js', [], { KEYS_DIR: emptyKeys, PORT: String(await freePort()) });
  t.equal(noKeys.code, 1);
  t.equal(noKeys.stderr, `KEYS_DIR: no signing key in ${emptyKeys}: create one with "oauth2-token-service keys rotate"\n`);

  const badConfig = await runNode('src/main.js', [], { PORT: '99999', ACCESS_TOKEN_TTL: 'hour' });
  t.equal(badConfig.code, 1);
  t.equal(badConfig.stderr, 'PORT must be at most 65535\nACCESS_TOKEN_TTL must be a whole number of seconds\n');

  const keysDir = await keysDirWithSigningKey(t);
  const file = join(await tempDir(t), 'clients.json');
  await writeFile(
    file,
    JSON.stringify({ clients: [{ client_id: 'svc', client_secret_hash: 'sha256:nope', grant_types: ['client_credentials'] }] }),
  );
  const badClients = await runNode('src/main.js', [], { KEYS_DIR: keysDir, CLIENTS_FILE: file, PORT: String(await freePort()) });
  t.equal(badClients.code, 1);
  t.equal(
    badClients.stderr,
    `CLIENTS_FILE: ${file}: client "svc": client_secret_hash: must be the output of "oauth2-token-service secret hash"\n`,
  );

  const resources = await resourcesFile(t, [
    { resource: `${RESOURCE}#tools`, scope: 'tools' },
    { resource: RESOURCE, access_token_ttl: 0 },
  ]);
  const badResources = await runNode('src/main.js', [], { KEYS_DIR: keysDir, RESOURCES_FILE: resources, PORT: String(await freePort()) });
  t.equal(badResources.code, 1);
  t.equal(
    badResources.stderr,
    `RESOURCES_FILE: ${resources}: resource "${RESOURCE}#tools": resource: must not have a fragment (RFC 8707 §2)\n` +
      `RESOURCES_FILE: ${resources}: resource "${RESOURCE}": access_token_ttl: Too small: expected number to be >=1\n`,
    'every problem, one line each',
  );
});

t.test('a production process on Redis issues tokens and reloads keys on SIGHUP', async (t) => {
  const redis = await startPrivateRedis(t);
  const keysDir = await keysDirWithSigningKey(t);
  const server = await startServerProcess(t, {
    PORT: String(await freePort()),
    KEYS_DIR: keysDir,
    CLIENTS_FILE: await clientsFile(t),
    RESOURCES_FILE: await resourcesFile(t, [{ resource: RESOURCE, name: 'MCP', scope: 'read', access_token_ttl: 600 }]),
    REDIS_URL: redis.url,
    KEYS_RELOAD_INTERVAL: '0',
  });
  t.equal((await fetch(`${server.baseUrl}/readyz`)).status, 200);
  const first = await token(server.baseUrl);
  t.equal(first.status, 200);
  const firstKid = decodeProtectedHeader(first.body.access_token as string).kid;

  t.test('RESOURCES_FILE: a token for a registered resource carries it as aud', async (t) => {
    const forResource = await token(server.baseUrl, `grant_type=client_credentials&resource=${encodeURIComponent(RESOURCE)}`);
    t.same([forResource.status, forResource.body.scope, forResource.body.expires_in], [200, 'read', 600]);
    t.equal(decodeJwt(forResource.body.access_token as string).aud, RESOURCE);
    const metadata = (await (await fetch(`${server.baseUrl}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    t.same(metadata.protected_resources, [RESOURCE, `${metadata.issuer as string}/admin/v1`], 'and the admin API every server has');
  });

  t.test('SIGHUP picks up a rotated folder without dropping requests', async (t) => {
    await rotateKeys(keysDir, { alg: 'ES256', delay: 0, accessTokenTtl: 3600 });
    const inFlight = Array.from({ length: 20 }, () => token(server.baseUrl));
    server.child.kill('SIGHUP');
    const results = await Promise.all(inFlight);
    t.same(
      results.map((r) => r.status),
      Array(20).fill(200),
      'no request failed during the reload',
    );
    await eventually(async () => (await jwksKids(server.baseUrl)).length === 2, 'the new key in the JWKS');
    const next = await token(server.baseUrl);
    t.not(decodeProtectedHeader(next.body.access_token as string).kid, firstKid, 'new tokens carry the new kid');
    t.match(server.output(), /"msg":"signing keys reloaded"/);
  });

  t.test('a folder that fails to load keeps the previous keys and logs why', async (t) => {
    const before = await jwksKids(server.baseUrl);
    await writeFile(join(keysDir, 'broken.json'), '{', { mode: 0o600 });
    server.child.kill('SIGHUP');
    await eventually(async () => server.output().includes('signing keys reload failed'), 'the failure log');
    t.match(server.output(), /key file broken\.json: not valid JSON/);
    t.same(await jwksKids(server.baseUrl), before);
    t.equal((await token(server.baseUrl)).status, 200);
    await rm(join(keysDir, 'broken.json'));
  });

  t.test('Redis going away turns /readyz to 503', async (t) => {
    await redis.kill();
    t.equal((await fetch(`${server.baseUrl}/readyz`)).status, 503);
  });

  t.test('SIGTERM stops the process cleanly', async (t) => {
    const exit = once(server.child, 'exit');
    server.child.kill('SIGTERM');
    const [code] = await exit;
    t.equal(code, 0);
  });
});

t.test('libuv’s thread pool: by default a thread per CPU left beside the event loop (1 to 4), else UV_THREADPOOL_SIZE', async (t) => {
  const keysDir = await keysDirWithSigningKey(t);
  const clients = await clientsFile(t);
  const poolThreads = async (env: Record<string, string>) => {
    // Signing on the pool, so the token request starts it.
    const server = await startServerProcess(t, {
      PORT: String(await freePort()),
      KEYS_DIR: keysDir,
      CLIENTS_FILE: clients,
      ACCESS_TOKEN_SIGNING: 'thread-pool',
      ...env,
    });
    t.equal((await token(server.baseUrl)).status, 200);
    const tasks = `/proc/${server.child.pid}/task`;
    const names = await Promise.all((await readdir(tasks)).map((id) => readFile(`${tasks}/${id}/comm`, 'utf8').catch(() => '')));
    await server.stop();
    return names.filter((name) => name.trim() === 'libuv-worker').length;
  };
  t.equal(await poolThreads({}), defaultThreadPoolSize(1, availableParallelism()), `${availableParallelism()} CPUs, one process`);
  t.equal(await poolThreads({ UV_THREADPOOL_SIZE: '3' }), 3, 'the operator’s size');
});

t.test('KEYS_RELOAD_INTERVAL re-reads the folder without a signal', async (t) => {
  const keysDir = await keysDirWithSigningKey(t);
  const server = await startServerProcess(t, {
    PORT: String(await freePort()),
    KEYS_DIR: keysDir,
    CLIENTS_FILE: await clientsFile(t),
    KEYS_RELOAD_INTERVAL: '1',
  });
  const before = await jwksKids(server.baseUrl);
  t.equal(before.length, 1);
  const scheduled = (await rotateKeys(keysDir, { alg: 'ES256', delay: 300, accessTokenTtl: 3600 })).find(
    (change) => change.action === 'created',
  )?.key.kid as string;
  await eventually(async () => (await jwksKids(server.baseUrl)).length === 2, 'the periodic reload', 5000);
  t.same(
    await jwksKids(server.baseUrl),
    [...before, scheduled].sort(),
    'the scheduled key is published within the interval, the current one kept',
  );
});

t.test('logs are JSON with a request id and never carry credentials, at trace, whatever the request', async (t) => {
  const keysDir = await keysDirWithSigningKey(t);
  const port = await freePort();
  const server = await startServerProcess(t, {
    PORT: String(port),
    KEYS_DIR: keysDir,
    CLIENTS_FILE: await clientsFile(t),
    LOG_LEVEL: 'trace',
    HTTP_REQUEST_TIMEOUT: '1',
  });
  const issued = await token(server.baseUrl);
  const basicHeader = `Basic ${Buffer.from(`svc:${SECRET}`).toString('base64')}`;
  const credentials = `Host: a\r\nauthorization: ${basicHeader}\r\ncookie: session=cookie-value`;
  await fetch(`${server.baseUrl}/oauth2/token?client_secret=${SECRET}&code=query-code-value`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: 'session=cookie-value' },
    body: `grant_type=client_credentials&client_id=svc&client_secret=${SECRET}&password=hunter2`,
  });
  await fetch(`${server.baseUrl}/oauth2/token`, { method: 'POST', headers: { authorization: 'Basic !!!garbage-credential' }, body: '' });
  // Every malformed shape, each carrying the same secrets in its URL, headers or body.
  const shapes = [
    `GET /oauth2/tokn?client_secret=${SECRET}&refresh_token=query-refresh-value HTTP/1.1\r\n${credentials}\r\nConnection: close\r\n\r\n`,
    `GET /oauth2/token?code=query-code-value&typo_secret=query-typo-value HTTP/1.1\r\n${credentials}\r\nConnection: close\r\n\r\n`,
    `POST /oauth2/token/?password=hunter2 HTTP/1.1\r\n${credentials}\r\nContent-Length: 16\r\nConnection: close\r\n\r\npassword=hunter2`,
    `GET /oauth2/%zz?password=hunter2 HTTP/1.1\r\n${credentials}\r\nConnection: close\r\n\r\n`,
    `BREW /oauth2/token?client_secret=${SECRET} HTTP/1.1\r\n${credentials}\r\n\r\npassword=hunter2`,
    `CONNECT /oauth2/token?code=query-code-value HTTP/1.1\r\n${credentials}\r\n\r\n`,
    `GET /healthz?token=query-token-value HTTP/1.1\r\n${credentials}\r\nX-Padding: ${'p'.repeat(20_000)}\r\n\r\n`,
    `POST /oauth2/token HTTP/1.1\r\n${credentials}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${70 * 1024}\r\nConnection: close\r\n\r\npassword=hunter2&client_secret=${SECRET}&${'x'.repeat(70 * 1024)}`,
    // Stops half-way: answered 408 after HTTP_REQUEST_TIMEOUT.
    `POST /oauth2/token HTTP/1.1\r\n${credentials}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 500\r\n\r\npassword=hunter2`,
  ];
  const statuses = [];
  for (const shape of shapes) statuses.push((await rawExchange(port, shape)).status);
  t.same(statuses, [404, 405, 404, 400, 400, 405, 431, 400, 408], 'every shape got an HTTP answer');
  await server.stop();
  const output = server.output();
  const lines = output
    .trim()
    .split('\n')
    .filter((l) => l.startsWith('{'));
  t.ok(lines.length > 20);
  for (const line of lines) JSON.parse(line);
  t.match(output, /"reqId":"[0-9a-f-]{36}"/);
  t.match(output, /"url":"\/oauth2\/token\?client_secret=\[REDACTED\]&code=\[REDACTED\]"/);
  t.match(output, /"url":"\/oauth2\/tokn\?client_secret=\[REDACTED\]&refresh_token=\[REDACTED\]","msg":"route not found"/);
  t.match(output, /"clientError":"ERR_HTTP_REQUEST_TIMEOUT","statusCode":408/);
  t.notMatch(output, 'rawPacket');
  const secrets = [
    SECRET,
    basicHeader.slice(6),
    'query-code-value',
    'query-refresh-value',
    'query-typo-value',
    'query-token-value',
    'cookie-value',
    'hunter2',
    'garbage-credential',
    issued.body.access_token as string,
  ];
  for (const secret of secrets) t.notMatch(output, secret, `log does not contain ${secret.slice(0, 12)}…`);
});

import { once } from 'node:events';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { join } from 'node:path';
import { decodeProtectedHeader } from 'jose';
import t from 'tap';
import { hashClientSecret } from '../../src/clients/secret.js';
import { rotateKeys } from '../../src/keys/rotation.js';
import { keysDirWithSigningKey, tempDir } from '../helpers/keys.js';
import { freePort } from '../../harness/ports.js';
import { runNode, type ServerProcess, startServerProcess } from '../../harness/process.js';
import { startPrivateRedis } from '../../harness/redis.js';

/**
 * WORKERS=2: one primary, two workers on the same PORT, sharing a private redis-server.
 * What an operator sees: tokens from both workers, SIGHUP reaching each of them, a killed
 * worker replaced, SIGUSR2 replacing all of them without a failed request, SIGTERM
 * stopping everything.
 */

const SECRET = 'workers-process-secret-0123456789abcdefghijklmnopq';
const REQUEST_TIMEOUT_MS = 10_000;
const AUTHORIZATION = `Basic ${Buffer.from(`svc:${SECRET}`).toString('base64')}`;

interface TokenAnswer {
  readonly status: number;
  readonly kid: string | undefined;
}

/** One token request on a connection of its own, so the primary hands each to the next worker. */
function tokenOnNewConnection(port: number): Promise<TokenAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/oauth2/token',
        method: 'POST',
        agent: false,
        headers: { authorization: AUTHORIZATION, 'content-type': 'application/x-www-form-urlencoded', connection: 'close' },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => {
          const token = res.statusCode === 200 ? (JSON.parse(body) as { access_token: string }).access_token : undefined;
          resolve({ status: res.statusCode ?? 0, kid: token === undefined ? undefined : decodeProtectedHeader(token).kid });
        });
      },
    );
    req.on('error', reject);
    req.setTimeout(REQUEST_TIMEOUT_MS, () => req.destroy(new Error('no answer in time')));
    req.end('grant_type=client_credentials');
  });
}

/** The pids of the primary's children, from /proc (Linux). */
function workerPids(primary: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // After the ")" closing the name: state, then the parent's pid.
      const parent = Number(readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]?.split(' ')[1]);
      if (parent === primary) children.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return children.sort((a, b) => a - b);
}

const count = (server: ServerProcess, message: string) => server.output().split(`"msg":"${message}"`).length - 1;

async function waitFor(what: string, server: ServerProcess, done: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}:\n${server.output()}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** `"pid":N` of every log line carrying `message`. */
const pidsLogging = (server: ServerProcess, message: string) =>
  [...server.output().matchAll(new RegExp(`"pid":(\\d+)[^\\n]*"msg":"${message}"`, 'g'))].map((m) => Number(m[1]));

// Processes start slowly on a busy host: this file gets more than the default 240 s.
t.setTimeout(360_000);

t.test('WORKERS=2 with Redis: two workers on one PORT, signals handled by the primary', async (t) => {
  const redis = await startPrivateRedis(t);
  const dir = await tempDir(t);
  const keysDir = await keysDirWithSigningKey(t);
  const clientsFile = join(dir, 'clients.json');
  const svc = { client_id: 'svc', client_secret_hash: hashClientSecret(SECRET), grant_types: ['client_credentials'] };
  await writeFile(clientsFile, JSON.stringify({ clients: [svc] }));
  const port = await freePort();
  const metricsPort = await freePort();
  const server = await startServerProcess(t, {
    PORT: String(port),
    KEYS_DIR: keysDir,
    CLIENTS_FILE: clientsFile,
    REDIS_URL: redis.url,
    WORKERS: '2',
    KEYS_RELOAD_INTERVAL: '0',
    SHUTDOWN_TIMEOUT: '2',
    METRICS_PORT: String(metricsPort),
  });
  const primary = server.child.pid as number;
  await waitFor('both workers', server, () => count(server, 'authorization server ready') === 2, 30_000);
  const workers = workerPids(primary);
  t.equal(workers.length, 2, 'the primary runs two workers');
  t.same(pidsLogging(server, 'authorization server ready').sort(), workers, 'each worker runs the whole server');

  // SIGHUP: a key that signs from now on is picked up by every worker.
  const first = await tokenOnNewConnection(port);
  t.equal(first.status, 200);
  const [added] = (await rotateKeys(keysDir, { alg: 'ES256', delay: 0, accessTokenTtl: 3600 })).filter(
    (change) => change.action === 'created',
  );
  server.child.kill('SIGHUP');
  await waitFor('two reloads', server, () => count(server, 'signing keys reloaded') === 2);
  t.same(pidsLogging(server, 'signing keys reloaded').sort(), workers, 'each worker reloaded its keys');
  const afterReload = await Promise.all(Array.from({ length: 8 }, () => tokenOnNewConnection(port)));
  t.same(
    afterReload.map((answer) => [answer.status, answer.kid]),
    Array.from({ length: 8 }, () => [200, added?.key.kid]),
    'tokens from either worker carry the new kid',
  );
  t.not(first.kid, added?.key.kid);

  // METRICS_PORT is served by the primary: the sum over both workers of the 9 tokens issued.
  const scrape = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
  t.equal(scrape.status, 200);
  t.match(await scrape.text(), /\noauth2_tokens_issued_total\{grant_type="client_credentials",client_id="svc"\} 9\n/);

  // A worker that dies is replaced, and the new one serves.
  process.kill(workers[0] as number, 'SIGKILL');
  await waitFor('a replacement', server, () => count(server, 'worker listening') === 3, 30_000);
  const replaced = workerPids(primary);
  t.equal(replaced.length, 2, 'two workers again');
  t.notOk(replaced.includes(workers[0] as number), 'the killed worker is gone');
  t.match(server.output(), /"signal":"SIGKILL","restartInMs":\d+,"msg":"worker died; starting a replacement"/);
  const afterCrash = await Promise.all(Array.from({ length: 4 }, () => tokenOnNewConnection(port)));
  t.same(
    afterCrash.map((answer) => answer.status),
    [200, 200, 200, 200],
  );

  // SIGUSR2 replaces every worker while requests keep coming; none fails.
  let load = true;
  const answers: number[] = [];
  const failures: string[] = [];
  const client = async () => {
    while (load) {
      await tokenOnNewConnection(port).then(
        (answer) => answers.push(answer.status),
        (err: Error) => failures.push(err.message),
      );
    }
  };
  const clients = Array.from({ length: 2 }, client);
  server.child.kill('SIGUSR2');
  try {
    // Two workers start one after the other: seconds each on a busy CI host.
    await waitFor('the graceful restart', server, () => count(server, 'graceful restart done') === 1, 90_000);
  } finally {
    load = false;
    await Promise.all(clients);
  }
  const restarted = workerPids(primary);
  t.equal(restarted.length, 2);
  t.same(
    restarted.filter((pid) => replaced.includes(pid)),
    [],
    'every worker was replaced',
  );
  t.same(failures, [], 'no request failed during the restart');
  t.ok(answers.length > 0 && answers.every((status) => status === 200), `${answers.length} requests answered 200 during the restart`);

  // SIGTERM stops the workers, then the primary.
  const exited = once(server.child, 'exit');
  server.child.kill('SIGTERM');
  const [code] = (await exited) as [number | null];
  t.equal(code, 0, 'the primary exits 0');
  t.same(
    restarted.filter((pid) => existsSync(`/proc/${pid}`)),
    [],
    'no worker outlives the primary',
  );
  t.match(server.output(), /"msg":"all workers stopped"/);
  t.notMatch(server.output(), SECRET, 'no secret in the log');
});

t.test('a worker that cannot start stops the primary with status 1', async (t) => {
  const redis = await startPrivateRedis(t);
  const emptyKeys = await tempDir(t);
  const result = await runNode('src/main.js', [], {
    PORT: String(await freePort()),
    HOST: '127.0.0.1',
    KEYS_DIR: emptyKeys,
    REDIS_URL: redis.url,
    WORKERS: '2',
  });
  t.equal(result.code, 1);
  t.match(result.stdout, /"msg":"a worker exited during start; stopping"/);
  t.match(result.stderr, emptyKeys, 'the worker says what is wrong with its keys');
});

import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { hashClientSecret } from '../../src/clients/secret.js';
import { keysDirWithSigningKey, tempDir } from '../helpers/keys.js';
import { parseExposition } from '../helpers/metrics.js';
import { freePort } from '../../harness/ports.js';
import { startServerProcess, untilPrinted } from '../../harness/process.js';
import { startPrivateRedis } from '../../harness/redis.js';

const SECRET = 'metrics-process-secret-0123456789abcdefghijklmnop';

/**
 * One built server process with METRICS_PORT and Redis: /metrics answers on its own port
 * (never on the public one), with the OAuth series, the store's, the key gauges and Node's
 * process metrics; the audit lines (key.loaded at start and on SIGHUP, token.issued) are
 * in its output, without the secret.
 */
t.test('METRICS_PORT: a second listener; audit lines in the process output', async (t) => {
  const redis = await startPrivateRedis(t);
  const clientsFile = join(await tempDir(t), 'clients.json');
  await writeFile(
    clientsFile,
    JSON.stringify({ clients: [{ client_id: 'svc', client_secret_hash: hashClientSecret(SECRET), grant_types: ['client_credentials'] }] }),
  );
  const [port, metricsPort] = [await freePort(), await freePort()];
  const server = await startServerProcess(t, {
    PORT: String(port),
    METRICS_PORT: String(metricsPort),
    KEYS_DIR: await keysDirWithSigningKey(t),
    CLIENTS_FILE: clientsFile,
    REDIS_URL: redis.url,
  });
  const issued = await fetch(`${server.baseUrl}/oauth2/token`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`svc:${SECRET}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: 'grant_type=client_credentials',
  });
  t.equal(issued.status, 200);
  const accessToken = ((await issued.json()) as { access_token: string }).access_token;
  t.equal((await fetch(`${server.baseUrl}/readyz`)).status, 200);
  t.equal((await fetch(`${server.baseUrl}/metrics`)).status, 404, 'not on the public listener');

  const res = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
  t.equal(res.status, 200);
  const samples = parseExposition(await res.text());
  const value = (name: string, labels: Record<string, string> = {}) =>
    samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;
  t.equal(value('oauth2_tokens_issued_total', { grant_type: 'client_credentials', client_id: 'svc' }), 1);
  t.ok((value('oauth2_store_command_duration_seconds_count', { operation: 'readiness write' }) ?? 0) >= 1, 'store operations timed');
  t.ok((value('oauth2_signing_key_age_seconds') ?? -1) >= 0, 'the signing key age');
  t.ok((value('process_resident_memory_bytes') ?? 0) > 0, 'process metrics');
  t.equal(value('oauth2_http_request_duration_seconds_count', { method: 'POST', route: '/oauth2/token', status_code: '200' }), 1);

  server.child.kill('SIGHUP');
  // The SIGHUP reloads keys and registries concurrently: wait for the key reload's own audit line.
  await untilPrinted(server, (output) => output.includes('"event":"key.loaded","reason":"SIGHUP"'));
  const audit = server
    .output()
    .split('\n')
    .filter((line) => line.includes('"audit":true'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  t.match(audit, [
    { level: 30, event: 'key.loaded', reason: 'start', keys: 1 },
    { level: 30, event: 'token.issued', grant: 'client_credentials', clientId: 'svc', sub: 'svc' },
    { level: 30, event: 'key.loaded', reason: 'SIGHUP', keys: 1 },
  ]);
  t.match(server.output(), `"metrics":"http://127.0.0.1:${metricsPort}/metrics"`, 'the ready line says where');
  t.notOk(server.output().includes(SECRET) || server.output().includes(accessToken), 'no secret in the output');
});

import { once } from 'node:events';
import type { Test } from 'tap';
import t from 'tap';
import { keysDirWithSigningKey } from '../helpers/keys.js';
import { freePort } from '../../harness/ports.js';
import { type ServerProcess, startServerProcess } from '../../harness/process.js';
import { clientMidRequest, parseRawResponse, recordingClient } from '../helpers/raw-http.js';

/** SIGTERM as an orchestrator sends it, with clients holding connections. */

async function serverProcess(t: Test, shutdownTimeout: string): Promise<{ server: ServerProcess; port: number }> {
  const port = await freePort();
  const server = await startServerProcess(t, {
    PORT: String(port),
    KEYS_DIR: await keysDirWithSigningKey(t),
    SHUTDOWN_TIMEOUT: shutdownTimeout,
  });
  return { server, port };
}

t.test('SIGTERM with idle keep-alive clients: the process exits at once', async (t) => {
  const { server, port } = await serverProcess(t, '10');
  const keptAlive = await recordingClient(port);
  keptAlive.socket.write('GET /healthz HTTP/1.1\r\nHost: a\r\n\r\n');
  await new Promise((r) => keptAlive.socket.once('data', r));
  t.match(keptAlive.received(), /Connection: keep-alive/);
  const silent = await recordingClient(port);
  const inFlight = await clientMidRequest(port);

  const started = Date.now();
  const exited = once(server.child, 'exit');
  server.child.kill('SIGTERM');
  await Promise.all([keptAlive.closed, silent.closed]);
  t.ok(Date.now() - started < 1000, 'idle connections are closed at once');
  inFlight.socket.write('credentials');
  const [code] = await exited;
  t.equal(code, 0);
  t.ok(Date.now() - started < 2000, `exited ${Date.now() - started} ms after SIGTERM, far below SHUTDOWN_TIMEOUT`);
  const answer = parseRawResponse(inFlight.received());
  t.equal(answer.status, 401, 'the in-flight request was answered');
  t.equal(answer.headers.connection, 'close');
  t.match(server.output(), /"signal":"SIGTERM","msg":"shutting down"/);
});

t.test('SIGTERM with a client that never finishes its request: exit after SHUTDOWN_TIMEOUT', async (t) => {
  const { server, port } = await serverProcess(t, '2');
  const holder = await clientMidRequest(port);

  const started = Date.now();
  const exited = once(server.child, 'exit');
  server.child.kill('SIGTERM');
  const [code] = await exited;
  const elapsed = Date.now() - started;
  t.equal(code, 0);
  t.ok(elapsed >= 1900 && elapsed < 3500, `exited ${elapsed} ms after SIGTERM (SHUTDOWN_TIMEOUT=2)`);
  await holder.closed;
  t.equal(holder.received(), '', 'nothing was sent on the unfinished request: it was cut');
  t.match(server.output(), /"connections":1,"timeoutSeconds":2,"msg":"shutdown timeout: closing the remaining connections"/);
});

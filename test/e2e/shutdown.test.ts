import t from 'tap';
import { once } from 'node:events';
import type { Socket } from 'node:net';
import { keysDirWithSigningKey } from '../helpers/keys.js';
import { startServerProcess } from '../helpers/process.js';
import { openSocket, parseRawResponse } from '../helpers/raw-http.js';
import { freePort } from '../helpers/redis.js';

/** SIGTERM as an orchestrator sends it, with clients holding connections. */

async function connected(port: number): Promise<{ socket: Socket; received: () => string }> {
  const socket = await openSocket(port);
  let received = '';
  socket.on('data', (data) => (received += data));
  socket.on('error', () => undefined);
  return { socket, received: () => received };
}

const PARTIAL_BODY_REQUEST = 'POST /oauth2/token HTTP/1.1\r\nHost: a\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 29\r\n\r\ngrant_type=client_';

t.test('SIGTERM with idle keep-alive clients: the process exits at once', async (t) => {
  const port = await freePort();
  const server = await startServerProcess(t, { PORT: String(port), KEYS_DIR: await keysDirWithSigningKey(t), SHUTDOWN_TIMEOUT: '10' });
  const keptAlive = await connected(port);
  keptAlive.socket.write('GET /healthz HTTP/1.1\r\nHost: a\r\n\r\n');
  await new Promise((r) => keptAlive.socket.once('data', r));
  t.match(keptAlive.received(), /Connection: keep-alive/);
  const silent = await connected(port);
  const inFlight = await connected(port);
  inFlight.socket.write(PARTIAL_BODY_REQUEST);
  await new Promise((r) => setTimeout(r, 200));

  const started = Date.now();
  const exited = once(server.child, 'exit');
  server.child.kill('SIGTERM');
  await Promise.all([once(keptAlive.socket, 'close'), once(silent.socket, 'close')]);
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
  const port = await freePort();
  const server = await startServerProcess(t, { PORT: String(port), KEYS_DIR: await keysDirWithSigningKey(t), SHUTDOWN_TIMEOUT: '2' });
  const holder = await connected(port);
  holder.socket.write(PARTIAL_BODY_REQUEST);
  await new Promise((r) => setTimeout(r, 200));

  const started = Date.now();
  const exited = once(server.child, 'exit');
  server.child.kill('SIGTERM');
  const disconnected = once(holder.socket, 'close');
  const [code] = await exited;
  const elapsed = Date.now() - started;
  t.equal(code, 0);
  t.ok(elapsed >= 1900 && elapsed < 3500, `exited ${elapsed} ms after SIGTERM (SHUTDOWN_TIMEOUT=2)`);
  await disconnected;
  t.equal(holder.received(), '', 'nothing was sent on the unfinished request: it was cut');
  t.match(server.output(), /"connections":1,"timeoutSeconds":2,"msg":"shutdown timeout: closing the remaining connections"/);
});

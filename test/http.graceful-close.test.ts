import t from 'tap';
import type { Socket } from 'node:net';
import { useGracefulClose } from '../src/http/graceful-close.js';
import { capturedLogger } from './helpers/logs.js';
import { listenOnFreePort, openSocket, parseRawResponse } from './helpers/raw-http.js';
import { buildTestServer, FORM_HEADERS } from './helpers/server.js';

interface Watched {
  readonly socket: Socket;
  readonly received: () => string;
  readonly closedAt: Promise<number>;
}

async function watch(port: number, started: () => number): Promise<Watched> {
  const socket = await openSocket(port);
  let received = '';
  socket.on('data', (data) => (received += data));
  socket.on('error', () => undefined);
  return { socket, received: () => received, closedAt: new Promise((resolve) => socket.once('close', () => resolve(Date.now() - started()))) };
}

const PARTIAL_TOKEN_REQUEST = `POST /oauth2/token HTTP/1.1\r\nHost: a\r\ncontent-type: ${FORM_HEADERS['content-type']}\r\nContent-Length: 29\r\n\r\ngrant_type=client_`;

t.test('closing: idle connections close at once, in-flight requests finish with Connection: close', async (t) => {
  const { app } = await buildTestServer(t);
  const graceful = useGracefulClose(app);
  const port = await listenOnFreePort(app);
  let closeStarted = 0;
  const since = () => closeStarted;

  const keptAlive = await watch(port, since);
  keptAlive.socket.write('GET /healthz HTTP/1.1\r\nHost: a\r\n\r\n');
  await new Promise((r) => keptAlive.socket.once('data', r));
  const silent = await watch(port, since);
  const inFlight = await watch(port, since);
  inFlight.socket.write(PARTIAL_TOKEN_REQUEST);
  await new Promise((r) => setTimeout(r, 100));

  closeStarted = Date.now();
  const closed = graceful.close(10_000);
  t.ok((await keptAlive.closedAt) < 500, 'the idle keep-alive connection closes at once');
  t.ok((await silent.closedAt) < 500, 'a connection that never sent a request closes at once');
  t.notOk(inFlight.socket.destroyed, 'the in-flight request keeps its connection');

  inFlight.socket.write('credentials');
  await inFlight.closedAt;
  const res = parseRawResponse(inFlight.received());
  t.equal(res.status, 401, 'the in-flight request is answered (no client credentials)');
  t.equal(res.headers.connection, 'close');
  t.equal(JSON.parse(res.body).error, 'invalid_client');
  await closed;
  t.ok(Date.now() - closeStarted < 2000, 'close() returns once the last response has left');
});

t.test('closing: a connection still busy at the timeout is closed, and close() returns', async (t) => {
  const logs = capturedLogger('info');
  const { app } = await buildTestServer(t, { logger: logs.logger });
  const graceful = useGracefulClose(app);
  const port = await listenOnFreePort(app);
  let closeStarted = 0;
  const holder = await watch(port, () => closeStarted);
  holder.socket.write(PARTIAL_TOKEN_REQUEST);
  await new Promise((r) => setTimeout(r, 100));

  closeStarted = Date.now();
  await graceful.close(700);
  const elapsed = Date.now() - closeStarted;
  t.ok(elapsed >= 650 && elapsed < 2000, `close() returned after ${elapsed} ms`);
  t.ok((await holder.closedAt) < 2000, 'the holder was disconnected');
  t.match(logs.text(), /"connections":1,"timeoutSeconds":0.7,"msg":"shutdown timeout: closing the remaining connections"/);
});

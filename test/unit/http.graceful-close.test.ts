import t from 'tap';
import { useGracefulClose } from '../../src/http/graceful-close.js';
import { capturedLogger } from '../helpers/logs.js';
import { clientMidRequest, listenOnFreePort, parseRawResponse, recordingClient } from '../helpers/raw-http.js';
import { buildTestServer } from '../helpers/server.js';

t.test('closing: idle connections close at once, in-flight requests finish with Connection: close', async (t) => {
  const { app } = await buildTestServer(t);
  const graceful = useGracefulClose(app);
  const port = await listenOnFreePort(app);

  const keptAlive = await recordingClient(port);
  keptAlive.socket.write('GET /healthz HTTP/1.1\r\nHost: a\r\n\r\n');
  await new Promise((r) => keptAlive.socket.once('data', r));
  const silent = await recordingClient(port);
  const inFlight = await clientMidRequest(port);

  const started = Date.now();
  const closed = graceful.close(10_000);
  await Promise.all([keptAlive.closed, silent.closed]);
  t.ok(Date.now() - started < 500, 'the idle keep-alive connection and the silent one close at once');
  t.notOk(inFlight.socket.destroyed, 'the in-flight request keeps its connection');

  inFlight.socket.write('credentials');
  await inFlight.closed;
  const res = parseRawResponse(inFlight.received());
  t.equal(res.status, 401, 'the in-flight request is answered (no client credentials)');
  t.equal(res.headers.connection, 'close');
  t.equal(JSON.parse(res.body).error, 'invalid_client');
  await closed;
  t.ok(Date.now() - started < 2000, 'close() returns once the last response has left');
});

t.test('closing: a connection still busy at the timeout is closed, and close() returns', async (t) => {
  const logs = capturedLogger('info');
  const { app } = await buildTestServer(t, { logger: logs.logger });
  const graceful = useGracefulClose(app);
  const port = await listenOnFreePort(app);
  const holder = await clientMidRequest(port);

  const started = Date.now();
  await graceful.close(700);
  const elapsed = Date.now() - started;
  t.ok(elapsed >= 650 && elapsed < 2000, `close() returned after ${elapsed} ms`);
  await holder.closed;
  t.equal(holder.received(), '', 'the unfinished request was cut, not answered');
  t.match(logs.text(), /"connections":1,"timeoutSeconds":0.7,"msg":"shutdown timeout: closing the remaining connections"/);
});

t.test('closing: a connection made just before the close still gets its first request answered', async (t) => {
  const { app } = await buildTestServer(t);
  const graceful = useGracefulClose(app);
  const port = await listenOnFreePort(app);

  // With WORKERS, the primary may hand a worker a connection just before a graceful restart closes it.
  const justConnected = await recordingClient(port);
  const closed = graceful.close(10_000);
  await new Promise((r) => setTimeout(r, 50));
  justConnected.socket.write('GET /healthz HTTP/1.1\r\nHost: a\r\n\r\n');
  await justConnected.closed;
  const res = parseRawResponse(justConnected.received());
  t.equal(res.status, 200, 'answered, not reset');
  t.equal(res.headers.connection, 'close');
  await closed;
});

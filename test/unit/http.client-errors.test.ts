import type { Test } from 'tap';
import t from 'tap';
import { capturedLogger } from '../helpers/logs.js';
import { listenOnFreePort, openSocket, parseRawResponse, type RawResult, rawExchange } from '../helpers/raw-http.js';
import { buildTestServer } from '../helpers/server.js';

/** The answer to anything the HTTP parser rejects: RFC 6749 JSON, no-store, and the connection closes. */
function assertParserAnswer(t: Test, res: RawResult, status: number, description: string): void {
  t.equal(res.status, status);
  t.equal(res.headers['content-type'], 'application/json;charset=UTF-8');
  t.equal(res.headers['cache-control'], 'no-store');
  t.equal(res.headers.connection, 'close');
  t.same(JSON.parse(res.body), { error: 'invalid_request', error_description: description });
  t.ok(res.closed, 'the server closed the connection');
}

t.test('requests Node cannot parse get an HTTP answer and a closed connection', async (t) => {
  const logs = capturedLogger('trace');
  const { app } = await buildTestServer(t, { logger: logs.logger });
  const port = await listenOnFreePort(app);

  t.test('an unknown method (BREW)', async (t) => {
    const res = await rawExchange(
      port,
      'BREW /pot HTTP/1.1\r\nHost: a\r\nAuthorization: Basic cmF3LXBhY2tldC1zZWNyZXQ=\r\nCookie: sid=raw-cookie-value\r\n\r\n',
    );
    assertParserAnswer(t, res, 400, 'the request is not valid HTTP/1.1');
  });

  t.test('random bytes', async (t) => {
    const res = await rawExchange(port, Buffer.from([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0xff, 0x0d, 0x0a, 0x0d, 0x0a]));
    assertParserAnswer(t, res, 400, 'the request is not valid HTTP/1.1');
  });

  t.test('a header section over 16 KiB', async (t) => {
    const res = await rawExchange(port, `GET /healthz HTTP/1.1\r\nHost: a\r\nX-Padding: ${'a'.repeat(20_000)}\r\n\r\n`);
    assertParserAnswer(t, res, 431, 'the request headers are too large');
  });

  t.test('the same to HEAD: 431 without content (RFC 9110 §9.3.2)', async (t) => {
    const res = await rawExchange(port, `HEAD /healthz HTTP/1.1\r\nHost: a\r\nX-Padding: ${'a'.repeat(20_000)}\r\n\r\n`);
    t.equal(res.status, 431);
    t.equal(res.headers.connection, 'close');
    t.equal(res.body, '');
    t.ok(res.closed);
  });

  t.test('a chunked body with an invalid chunk size', async (t) => {
    const res = await rawExchange(
      port,
      'POST /oauth2/token HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\npassword=raw-body-password\r\n',
    );
    assertParserAnswer(t, res, 400, 'the request is not valid HTTP/1.1');
  });

  t.test('bytes after a complete request (a DELETE body without framing): its answer first, then 400', async (t) => {
    const res = await rawExchange(port, 'DELETE /oauth2/token HTTP/1.1\r\nHost: a\r\n\r\npassword=unframed-body-password');
    t.equal(res.status, 405, 'the DELETE is answered first');
    t.equal(res.headers.allow, 'OPTIONS, POST');
    const second = parseRawResponse(res.body.slice(res.body.indexOf('HTTP/1.1 ')));
    t.equal(second.status, 400, 'then the bytes after it');
    t.same(JSON.parse(second.body), { error: 'invalid_request', error_description: 'the request is not valid HTTP/1.1' });
    t.ok(res.closed);
  });

  t.test('CONNECT to another host: 404, then the connection closes', async (t) => {
    const res = await rawExchange(port, 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n');
    t.equal(res.status, 404);
    t.equal(res.headers['cache-control'], 'no-store');
    t.same(JSON.parse(res.body), { error: 'not_found', error_description: 'there is no endpoint at this path' });
    t.ok(res.closed);
  });

  t.test('CONNECT to one of our paths: 405 with Allow', async (t) => {
    const res = await rawExchange(port, 'CONNECT /oauth2/token HTTP/1.1\r\nHost: a\r\n\r\n');
    t.equal(res.status, 405);
    t.equal(res.headers.allow, 'OPTIONS, POST');
    t.equal(res.headers.connection, 'close');
    t.ok(res.closed);
  });

  t.test('the log has one line per error, without the raw packet', async (t) => {
    const lines = logs.lines().filter((line) => line.includes('"msg":"client error"'));
    t.same(
      lines.map((line) => JSON.parse(line).clientError),
      [
        'HPE_INVALID_METHOD',
        'HPE_INVALID_METHOD',
        'HPE_HEADER_OVERFLOW',
        'HPE_HEADER_OVERFLOW',
        'HPE_INVALID_CHUNK_SIZE',
        'HPE_INVALID_METHOD',
      ],
    );
    const text = logs.text();
    t.notMatch(text, 'rawPacket');
    for (const secret of ['cmF3LXBhY2tldC1zZWNyZXQ=', 'raw-cookie-value', 'raw-body-password', 'unframed-body-password'])
      t.notMatch(text, secret);
  });
});

t.test('HTTP_REQUEST_TIMEOUT: a request not received in time gets 408 and the connection closes', { jobs: 4 }, async (t) => {
  // Each case waits out real time on its own connection, so they run side by side.
  const { app } = await buildTestServer(t, { env: { HTTP_REQUEST_TIMEOUT: '1' } });
  const port = await listenOnFreePort(app);

  t.test('a body that stops half-way', async (t) => {
    const res = await rawExchange(
      port,
      'POST /oauth2/token HTTP/1.1\r\nHost: a\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\ngrant_type=client_',
    );
    assertParserAnswer(t, res, 408, 'the request was not received in time');
    // Node checks deadlines every second: the answer comes between 1 and 2 s (plus load).
    t.ok(res.elapsedMs >= 1000 && res.elapsedMs < 4000, `answered after ${res.elapsedMs} ms`);
  });

  t.test('headers that never end', async (t) => {
    const res = await rawExchange(port, 'GET /healthz HTTP/1.1\r\nHost: a\r\n');
    assertParserAnswer(t, res, 408, 'the request was not received in time');
  });

  t.test('a body trickling in, byte by byte, past the deadline', async (t) => {
    const body = 'grant_type=client_credentials';
    const head = `POST /oauth2/token HTTP/1.1\r\nHost: a\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\n\r\n`;
    const res = await rawExchange(port, [head, ...body], { gapMs: 100 });
    assertParserAnswer(t, res, 408, 'the request was not received in time');
  });

  t.test('an idle keep-alive connection is not a late request', async (t) => {
    const socket = await openSocket(port);
    t.teardown(() => socket.destroy());
    const ask = async () => {
      const answer = new Promise<string>((resolve) => socket.once('data', (data) => resolve(data.toString())));
      socket.write('GET /healthz HTTP/1.1\r\nHost: a\r\n\r\n');
      return parseRawResponse(await answer);
    };
    t.equal((await ask()).status, 200);
    await new Promise((r) => setTimeout(r, 2500));
    t.notOk(socket.destroyed, 'still open after twice the request timeout');
    t.equal((await ask()).status, 200);
  });
});

import { Writable } from 'node:stream';
import t from 'tap';
import { basic, buildTestServer, FORM_HEADERS, form, NO_STORE_JSON, SECRETS } from '../helpers/server.js';

t.test('POST /oauth2/token fails closed with server_error and no internals', async (t) => {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const { app, clock } = await buildTestServer(t, { logger: { level: 'error', stream } });
  clock.now -= 7200_000; // a time at which no key is inside its signing window
  const res = await app.inject({
    method: 'POST',
    url: '/oauth2/token',
    headers: { ...FORM_HEADERS, authorization: basic('service', SECRETS.service), 'x-request-id': 'req-42' },
    payload: form({ grant_type: 'client_credentials' }),
  });
  t.equal(res.statusCode, 500);
  t.match(res.headers, NO_STORE_JSON);
  t.equal(res.headers['x-request-id'], 'req-42');
  t.same(res.json(), { error: 'server_error', error_description: 'the authorization server encountered an unexpected condition' });
  t.equal(lines.length, 1, 'logged once');
  t.match(JSON.parse(lines[0] as string), { level: 50, reqId: 'req-42', msg: 'server_error' });
});

import t from 'tap';
import { capturedLogger } from '../helpers/logs.js';
import { buildTestServer, NO_STORE_JSON } from '../helpers/server.js';

const SECRET_QUERY = 'client_secret=qs-secret-value&code=qs-code-value&refresh_token=qs-refresh-value';

t.test('a path no route serves: 404, JSON, the URL neither echoed nor logged', async (t) => {
  const logs = capturedLogger('trace');
  const { app } = await buildTestServer(t, { logger: logs.logger });
  for (const url of [`/oauth2/tokn?${SECRET_QUERY}`, `/oauth2/token/?${SECRET_QUERY}`, `/OAUTH2/TOKEN?${SECRET_QUERY}`, '/']) {
    const res = await app.inject({ method: 'GET', url });
    t.equal(res.statusCode, 404, url);
    t.match(res.headers, NO_STORE_JSON);
    t.same(res.json(), { error: 'not_found', error_description: 'there is no endpoint at this path' });
  }
  const text = logs.text();
  t.match(
    text,
    /"method":"GET","url":"\/oauth2\/tokn\?client_secret=\[REDACTED\]&code=\[REDACTED\]&refresh_token=\[REDACTED\]","msg":"route not found"/,
  );
  t.notMatch(text, /qs-(secret|code|refresh)-value/);
  t.notMatch(text, /Route GET/, "Fastify's own not-found line never appears");
});

t.test('a body of any type sent to an unknown path still gets 404 (it is never read)', async (t) => {
  const { app } = await buildTestServer(t);
  for (const contentType of ['application/json', 'application/x-www-form-urlencoded', 'text/plain', 'application/octet-stream']) {
    const res = await app.inject({ method: 'POST', url: '/nowhere', headers: { 'content-type': contentType }, payload: '{not json' });
    t.equal(res.statusCode, 404, contentType);
    t.equal(res.json().error, 'not_found');
  }
});

t.test('a malformed Content-Type is refused before routing: 400, as a page below the authorization endpoint', async (t) => {
  const { app } = await buildTestServer(t);
  const json = await app.inject({ method: 'POST', url: '/nowhere', headers: { 'content-type': 'form' }, payload: 'a=b' });
  t.equal(json.statusCode, 400);
  t.match(json.headers, NO_STORE_JSON);
  t.same(json.json(), { error: 'invalid_request', error_description: 'unsupported content type: use application/x-www-form-urlencoded' });
  const page = await app.inject({
    method: 'POST',
    url: '/oauth2/authorize/elsewhere',
    headers: { 'content-type': 'form' },
    payload: 'a=b',
  });
  t.equal(page.statusCode, 400);
  t.equal(page.headers['content-type'], 'text/html; charset=utf-8');
  t.match(page.body, 'unsupported content type');
});

t.test('a known path with another method: 405 with Allow taken from the routes', async (t) => {
  const { app } = await buildTestServer(t);
  const cases: [string, string, string][] = [
    ['GET', '/oauth2/token', 'OPTIONS, POST'],
    ['PUT', '/oauth2/revoke', 'OPTIONS, POST'],
    ['GET', '/oauth2/introspect', 'POST'],
    ['POST', '/healthz', 'GET, HEAD'],
    ['DELETE', '/readyz', 'GET, HEAD'],
    ['POST', '/.well-known/jwks.json', 'GET, HEAD'],
    ['PATCH', '/.well-known/oauth-authorization-server', 'GET, HEAD'],
    ['OPTIONS', '/oauth2/introspect', 'POST'],
    ['OPTIONS', '/healthz', 'GET, HEAD'],
    ['PROPFIND', '/oauth2/token', 'OPTIONS, POST'],
    ['TRACE', '/healthz', 'GET, HEAD'],
  ];
  for (const [method, url, allow] of cases) {
    const res = await app.inject({ method: method as 'GET', url: `${url}?client_secret=qs-secret-value` });
    t.equal(res.statusCode, 405, `${method} ${url}`);
    t.equal(res.headers.allow, allow, `${method} ${url}: Allow`);
    t.match(res.headers, NO_STORE_JSON);
    t.same(res.json(), { error: 'invalid_request', error_description: `method not allowed: this endpoint accepts ${allow}` });
  }
});

t.test('the authorization endpoint and its pages answer browsers in HTML', async (t) => {
  const { app } = await buildTestServer(t);
  const put = await app.inject({ method: 'PUT', url: '/oauth2/authorize?state=qs-state-value' });
  t.equal(put.statusCode, 405);
  t.equal(put.headers.allow, 'GET, HEAD, POST');
  t.equal(put.headers['content-type'], 'text/html; charset=utf-8');
  t.equal(put.headers['cache-control'], 'no-store');
  t.equal(put.headers['x-frame-options'], 'DENY');
  t.match(put.body, '<h1>Method not allowed</h1>');
  t.match(put.body, 'this endpoint accepts GET, HEAD, POST');
  t.notMatch(put.body, 'qs-state-value');

  const login = await app.inject({ method: 'GET', url: '/oauth2/authorize/login' });
  t.equal(login.statusCode, 405);
  t.equal(login.headers.allow, 'POST');
  t.equal(login.headers['content-type'], 'text/html; charset=utf-8');

  const unknown = await app.inject({ method: 'GET', url: '/oauth2/authorize/elsewhere?code=qs-code-value' });
  t.equal(unknown.statusCode, 404);
  t.equal(unknown.headers['content-type'], 'text/html; charset=utf-8');
  t.match(unknown.body, '<h1>Page not found</h1>');
  t.notMatch(unknown.body, 'qs-code-value');
});

t.test('a URL the router cannot decode: 400 invalid_request, nothing echoed', async (t) => {
  const logs = capturedLogger('trace');
  const { app } = await buildTestServer(t, { logger: logs.logger });
  const res = await app.inject({ method: 'GET', url: '/oauth2/%zz?password=qs-password-value' });
  t.equal(res.statusCode, 400);
  t.match(res.headers, NO_STORE_JSON);
  t.ok(res.headers['x-request-id']);
  t.same(res.json(), { error: 'invalid_request', error_description: 'the request URL is malformed' });
  t.match(logs.text(), /"url":"\/oauth2\/%zz\?password=\[REDACTED\]","msg":"malformed URL"/);
  t.notMatch(logs.text(), 'qs-password-value');

  const page = await app.inject({ method: 'GET', url: '/oauth2/authorize/%zz' });
  t.equal(page.statusCode, 400);
  t.equal(page.headers['content-type'], 'text/html; charset=utf-8');
});

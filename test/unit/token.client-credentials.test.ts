import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import t from 'tap';
import { basic, buildTestServer, FORM_HEADERS, form, ISSUER, NO_STORE_JSON, SECRETS } from '../helpers/server.js';

t.test('POST /oauth2/token grant_type=client_credentials', async (t) => {
  const { app, clock, keystore } = await buildTestServer(t);
  const jwks = createLocalJWKSet((await app.inject({ url: '/.well-known/jwks.json' })).json());

  const request = (params: Record<string, string>, authorization = basic('service', SECRETS.service)) =>
    app.inject({ method: 'POST', url: '/oauth2/token', headers: { ...FORM_HEADERS, authorization }, payload: form(params) });

  t.test('issues an RFC 9068 access token the JWKS verifies', async (t) => {
    const res = await request({ grant_type: 'client_credentials', scope: 'read write' });
    t.equal(res.statusCode, 200);
    t.match(res.headers, NO_STORE_JSON);
    const body = res.json();
    t.same(Object.keys(body).sort(), ['access_token', 'expires_in', 'scope', 'token_type']);
    t.equal(body.token_type, 'bearer');
    t.equal(body.scope, 'read write');
    t.equal(body.refresh_token, undefined, 'RFC 6749 §4.4.3: no refresh token');

    const header = decodeProtectedHeader(body.access_token);
    const signer = keystore.signingKeyAt(Math.floor(clock.now / 1000));
    t.same(header, { alg: 'ES256', kid: signer?.kid, typ: 'at+jwt' });

    const { payload } = await jwtVerify(body.access_token, jwks, {
      issuer: ISSUER,
      audience: ISSUER,
      typ: 'at+jwt',
      currentDate: new Date(clock.now),
    });
    t.equal(payload.sub, 'service', 'sub is the client id');
    t.equal(payload.client_id, 'service');
    t.equal(payload.scope, 'read write');
    t.equal(payload.iat, Math.floor(clock.now / 1000));
    t.equal(body.expires_in, 3600);
    t.equal(body.expires_in, (payload.exp as number) - (payload.iat as number), 'expires_in = exp - iat');
    t.match(payload.jti, /^[A-Za-z0-9_-]{22}$/);
  });

  t.test('defaults to the client registered scope', async (t) => {
    const res = await request({ grant_type: 'client_credentials' });
    t.equal(res.statusCode, 200);
    t.equal(res.json().scope, 'read write admin');
  });

  t.test('every token has its own jti', async (t) => {
    const [a, b] = await Promise.all([request({ grant_type: 'client_credentials' }), request({ grant_type: 'client_credentials' })]);
    const jti = (r: typeof a) => JSON.parse(Buffer.from(r.json().access_token.split('.')[1], 'base64url').toString()).jti;
    t.not(jti(a), jti(b));
  });

  t.test('scope outside the registered scope is invalid_scope', async (t) => {
    const res = await request({ grant_type: 'client_credentials', scope: 'read delete' });
    t.equal(res.statusCode, 400);
    t.match(res.headers, NO_STORE_JSON);
    t.same(res.json(), { error: 'invalid_scope', error_description: 'scope not allowed for this client: delete' });
  });

  t.test('scope that breaks the RFC 6749 §3.3 grammar is invalid_scope', async (t) => {
    for (const scope of ['read  write', ' read', 'read\u00e9', 'a"b', 'a\\b']) {
      const res = await request({ grant_type: 'client_credentials', scope });
      t.equal(res.statusCode, 400, JSON.stringify(scope));
      t.same(res.json(), {
        error: 'invalid_scope',
        error_description: 'scope is not a space-separated list of scope tokens (RFC 6749 section 3.3)',
      });
    }
  });

  t.test('a client without the grant is unauthorized_client', async (t) => {
    const res = await request({ grant_type: 'client_credentials' }, basic('webapp', 'webapp-secret'));
    t.equal(res.statusCode, 400);
    t.same(res.json(), {
      error: 'unauthorized_client',
      error_description: 'this client is not registered for grant_type client_credentials',
    });
  });

  t.test('a client registered for client_secret_post authenticates in the body', async (t) => {
    const res = await app.inject({
      method: 'POST',
      url: '/oauth2/token',
      headers: FORM_HEADERS,
      payload: form({ grant_type: 'client_credentials', client_id: 'poster', client_secret: SECRETS.poster }),
    });
    t.equal(res.statusCode, 200);
    t.equal(res.json().scope, 'read');
  });

  t.test('expires_in follows ACCESS_TOKEN_TTL and aud follows ACCESS_TOKEN_AUDIENCE', async (t) => {
    const custom = await buildTestServer(t, { env: { ACCESS_TOKEN_TTL: '120', ACCESS_TOKEN_AUDIENCE: 'https://api.example.com' } });
    const res = await custom.app.inject({
      method: 'POST',
      url: '/oauth2/token',
      headers: { ...FORM_HEADERS, authorization: basic('service', SECRETS.service) },
      payload: form({ grant_type: 'client_credentials' }),
    });
    t.equal(res.json().expires_in, 120);
    const claims = JSON.parse(Buffer.from(res.json().access_token.split('.')[1], 'base64url').toString());
    t.equal(claims.exp - claims.iat, 120);
    t.equal(claims.aud, 'https://api.example.com');
  });
});

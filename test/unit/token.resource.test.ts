import { createLocalJWKSet, jwtVerify } from 'jose';
import type { Test } from 'tap';
import t from 'tap';
import { ALICE, testUsers, WEB_SECRET } from '../helpers/authorize-fixtures.js';
import { expectOAuthError } from '../helpers/oauth-error.js';
import { API, claimsOf, FILES, MCP, RESOURCE_CLIENTS, RESOURCES, UNREGISTERED } from '../helpers/resource-fixtures.js';
import { buildTestServer, ISSUER, NO_STORE_JSON } from '../helpers/server.js';
import { TokenClient } from '../helpers/token-client.js';

/** The token endpoint with resource indicators (RFC 8707 §2.2), for the grants that start an authorization. */

async function server(t: Test, env: Record<string, string> = {}) {
  const built = await buildTestServer(t, { clients: RESOURCE_CLIENTS, users: testUsers(), resources: RESOURCES, env });
  const token = (clientId: string, params: Record<string, string>, ...resources: string[]) =>
    new TokenClient(built.app, clientId, WEB_SECRET).token(params, resources);
  return { ...built, token };
}

const CLIENT_CREDENTIALS = { grant_type: 'client_credentials' };
const target = (description: string) => ({ status: 400, error: 'invalid_target', description });

t.test('POST /oauth2/token grant_type=client_credentials with resource', async (t) => {
  const { app, token, clock } = await server(t);
  const jwks = createLocalJWKSet((await app.inject({ url: '/.well-known/jwks.json' })).json());

  t.test('one resource: aud is exactly it (a string); the token verifies for that audience only', async (t) => {
    const res = await token('robot', { ...CLIENT_CREDENTIALS, scope: 'read' }, API);
    t.equal(res.statusCode, 200);
    t.match(res.headers, NO_STORE_JSON);
    t.same(Object.keys(res.json()).sort(), ['access_token', 'expires_in', 'scope', 'token_type']);
    t.equal(res.json().scope, 'read');
    t.equal(res.json().expires_in, 3600, 'no TTL of its own: ACCESS_TOKEN_TTL');
    const options = { issuer: ISSUER, typ: 'at+jwt', currentDate: new Date(clock.now) };
    const { payload } = await jwtVerify(res.json().access_token, jwks, { ...options, audience: API });
    t.equal(payload.aud, API);
    await t.rejects(jwtVerify(res.json().access_token, jwks, { ...options, audience: ISSUER }), {
      code: 'ERR_JWT_CLAIM_VALIDATION_FAILED',
    });
    await t.rejects(jwtVerify(res.json().access_token, jwks, { ...options, audience: MCP }), { code: 'ERR_JWT_CLAIM_VALIDATION_FAILED' });
  });

  t.test('no scope: what the client may have and the resource accepts; the resource caps the lifetime', async (t) => {
    const res = await token('robot', CLIENT_CREDENTIALS, MCP);
    t.same(res.json().scope, 'tools');
    t.equal(res.json().expires_in, 900);
    const claims = claimsOf(res.json().access_token);
    t.equal(claims.aud, MCP);
    t.equal((claims.exp as number) - (claims.iat as number), 900);
  });

  t.test('several resources: aud is the array, the shortest lifetime wins', async (t) => {
    const res = await token('robot', CLIENT_CREDENTIALS, MCP, API, FILES, API);
    t.equal(res.statusCode, 200);
    t.equal(res.json().scope, 'read tools');
    t.equal(res.json().expires_in, 600);
    t.same(claimsOf(res.json().access_token).aud, [MCP, API, FILES], 'each once, in the order sent');
  });

  t.test('without resource: ACCESS_TOKEN_AUDIENCE, as before', async (t) => {
    const res = await token('robot', { ...CLIENT_CREDENTIALS, resource: '' });
    t.equal(res.json().scope, 'read tools', 'an empty resource counts as omitted');
    t.equal(claimsOf(res.json().access_token).aud, ISSUER);
  });

  t.test('invalid_target, exact JSON, nothing issued', async (t) => {
    expectOAuthError(
      t,
      await token('robot', CLIENT_CREDENTIALS, 'api.example.com'),
      target('resource must be an absolute URI (RFC 8707 section 2)'),
    );
    expectOAuthError(
      t,
      await token('robot', CLIENT_CREDENTIALS, `${MCP}#tools`),
      target('resource must not include a fragment (RFC 8707 section 2)'),
    );
    expectOAuthError(
      t,
      await token('robot', CLIENT_CREDENTIALS, UNREGISTERED),
      target('resource is not registered at this authorization server'),
    );
    expectOAuthError(
      t,
      await token('robot', CLIENT_CREDENTIALS, MCP, UNREGISTERED),
      target('resource is not registered at this authorization server'),
    );
    expectOAuthError(
      t,
      await token('robot', { ...CLIENT_CREDENTIALS, scope: 'tools' }, API),
      target('scope not offered by the requested resources: tools'),
    );
  });

  t.test('invalid_scope for a scope outside the client registration', async (t) => {
    expectOAuthError(t, await token('robot', { ...CLIENT_CREDENTIALS, scope: 'write' }, API), {
      status: 400,
      error: 'invalid_scope',
      description: 'scope not allowed for this client: write',
    });
  });

  t.test('a client registered without scope: no user consents here, so no scope, only the audience', async (t) => {
    const res = await token('bare', CLIENT_CREDENTIALS, API);
    t.equal(res.statusCode, 200);
    t.same(Object.keys(res.json()).sort(), ['access_token', 'expires_in', 'token_type'], 'no scope');
    t.equal(claimsOf(res.json().access_token).aud, API);
    expectOAuthError(t, await token('bare', { ...CLIENT_CREDENTIALS, scope: 'read' }, API), {
      status: 400,
      error: 'invalid_scope',
      description: 'scope not allowed for this client: read',
    });
  });

  t.test('introspection reports aud as in the token', async (t) => {
    const robot = new TokenClient(app, 'robot', WEB_SECRET);
    const one = (await token('robot', CLIENT_CREDENTIALS, MCP)).json().access_token;
    t.match(await robot.introspect(one), { active: true, aud: MCP, scope: 'tools' });
    const two = (await token('robot', CLIENT_CREDENTIALS, MCP, API)).json().access_token;
    t.match(await robot.introspect(two), { active: true, aud: [MCP, API], scope: 'read tools' });
  });
});

t.test('ACCESS_TOKEN_TTL below a resource TTL wins', async (t) => {
  const { token } = await server(t, { ACCESS_TOKEN_TTL: '300' });
  t.equal((await token('robot', CLIENT_CREDENTIALS, MCP)).json().expires_in, 300);
});

t.test('POST /oauth2/token grant_type=password with resource', async (t) => {
  const { token } = await server(t);
  const password = { grant_type: 'password', username: ALICE.username, password: ALICE.password };

  t.test('the access token is for the resource; a refresh token comes along', async (t) => {
    const res = await token('app', { ...password, scope: 'tools' }, MCP);
    t.equal(res.statusCode, 200);
    t.same(Object.keys(res.json()).sort(), ['access_token', 'expires_in', 'refresh_token', 'scope', 'token_type']);
    t.equal(res.json().expires_in, 900);
    t.match(claimsOf(res.json().access_token), { aud: MCP, sub: 'user-alice', scope: 'tools' });
  });

  t.test('a bad resource is refused before the password is checked', async (t) => {
    expectOAuthError(
      t,
      await token('app', { ...password, password: 'wrong' }, UNREGISTERED),
      target('resource is not registered at this authorization server'),
    );
    expectOAuthError(
      t,
      await token('app', { ...password, scope: 'tools' }, API),
      target('scope not offered by the requested resources: tools'),
    );
  });
});

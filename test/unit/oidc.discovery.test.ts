import t from 'tap';
import { STANDARD_CLAIMS } from '../../src/users/claims.js';
import { oidcServer } from '../helpers/oidc-fixtures.js';
import { buildTestServer } from '../helpers/server.js';

/** OpenID Connect Discovery 1.0: the provider metadata (§3) at <issuer>/.well-known/openid-configuration (§4). */

t.test('GET /.well-known/openid-configuration: the RFC 8414 document and what OpenID Connect adds', async (t) => {
  const server = await oidcServer(t);
  const res = await server.app.inject({ method: 'GET', url: '/.well-known/openid-configuration' });
  t.equal(res.statusCode, 200);
  t.match(res.headers, { 'content-type': 'application/json;charset=UTF-8', 'access-control-allow-origin': '*' });
  const oauth = (await server.app.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server' })).json() as Record<
    string,
    unknown
  >;
  const metadata = res.json() as Record<string, unknown>;
  t.same(
    Object.fromEntries(Object.keys(oauth).map((name) => [name, metadata[name]])),
    oauth,
    'the same issuer, endpoints and lists as the RFC 8414 document',
  );
  t.match(metadata, {
    issuer: 'https://as.example.com',
    authorization_endpoint: 'https://as.example.com/oauth2/authorize',
    token_endpoint: 'https://as.example.com/oauth2/token',
    userinfo_endpoint: 'https://as.example.com/oauth2/userinfo',
    jwks_uri: 'https://as.example.com/.well-known/jwks.json',
    end_session_endpoint: 'https://as.example.com/oauth2/logout',
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: ['RS256', 'ES256', 'EdDSA', 'PS256'],
    code_challenge_methods_supported: ['S256'],
    claims_parameter_supported: false,
    request_parameter_supported: false,
    request_uri_parameter_supported: false,
  });
  t.same(metadata.claims_supported, [
    'iss',
    'sub',
    'aud',
    'exp',
    'iat',
    'auth_time',
    'nonce',
    'at_hash',
    'azp',
    'sid',
    'amr',
    ...Object.keys(STANDARD_CLAIMS),
  ]);
  for (const scope of ['openid', 'profile', 'email', 'address', 'phone', 'offline_access', 'mcp:tools', 'read'])
    t.ok((metadata.scopes_supported as string[]).includes(scope), `scopes_supported has ${scope}`);
});

t.test('an issuer with a path: the document is appended to it (Discovery §4), not inserted as RFC 8414 does', async (t) => {
  const server = await buildTestServer(t, {
    env: { ISSUER: 'https://as.example.com/tenant-a' },
    clients: [
      {
        client_id: 'web',
        redirect_uris: ['https://app.example.com/cb'],
        grant_types: ['authorization_code'],
        token_endpoint_auth_method: 'none',
      },
    ],
  });
  const res = await server.app.inject({ method: 'GET', url: '/tenant-a/.well-known/openid-configuration' });
  t.equal(res.statusCode, 200);
  t.match(res.json(), { issuer: 'https://as.example.com/tenant-a', userinfo_endpoint: 'https://as.example.com/tenant-a/oauth2/userinfo' });
  t.equal((await server.app.inject({ method: 'GET', url: '/.well-known/openid-configuration/tenant-a' })).statusCode, 404);
});

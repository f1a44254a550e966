import t from 'tap';
import { rotateKeys } from '../../src/keys/rotation.js';
import { API, MCP, RESOURCES } from '../helpers/resource-fixtures.js';
import { buildTestServer, ISSUER, TEST_CLIENTS } from '../helpers/server.js';

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

t.test('GET /.well-known/jwks.json', async (t) => {
  const { app, keysDir, keystore, clock } = await buildTestServer(t, { env: { JWKS_CACHE_TTL: '600' } });
  const res = await app.inject({ url: '/.well-known/jwks.json' });
  t.equal(res.statusCode, 200);
  t.equal(res.headers['cache-control'], 'public, max-age=600');
  t.equal(res.headers['content-type'], 'application/json;charset=UTF-8');
  const { keys } = res.json();
  t.equal(keys.length, 1);
  t.same(Object.keys(keys[0]).sort(), ['alg', 'crv', 'kid', 'kty', 'use', 'x', 'y']);

  t.test('publishes a scheduled key before it signs, and the retired one until its tokens expire', async (t) => {
    const nowSec = Math.floor(clock.now / 1000);
    await rotateKeys(keysDir, { alg: 'ES256', delay: 300, accessTokenTtl: 3600, now: nowSec });
    await keystore.reload();
    const kids = (at: number) => {
      clock.now = at * 1000;
      return app.inject({ url: '/.well-known/jwks.json' }).then((r) => r.json().keys.map((k: { kid: string }) => k.kid));
    };
    t.equal((await kids(nowSec)).length, 2, 'both published during the delay');
    t.equal((await kids(nowSec + 300 + 3599)).length, 2, 'the old key stays while its tokens live');
    t.equal((await kids(nowSec + 300 + 3600)).length, 1, 'then only the new key');
  });
});

t.test('GET /.well-known/oauth-authorization-server (RFC 8414)', async (t) => {
  const { app } = await buildTestServer(t);
  const res = await app.inject({ url: '/.well-known/oauth-authorization-server' });
  t.equal(res.statusCode, 200);
  t.same(res.json(), {
    issuer: ISSUER,
    authorization_endpoint: `${ISSUER}/oauth2/authorize`,
    prompt_values_supported: ['none', 'login', 'consent'],
    end_session_endpoint: `${ISSUER}/oauth2/logout`,
    token_endpoint: `${ISSUER}/oauth2/token`,
    userinfo_endpoint: `${ISSUER}/oauth2/userinfo`,
    jwks_uri: `${ISSUER}/.well-known/jwks.json`,
    grant_types_supported: ['authorization_code', 'client_credentials'],
    response_types_supported: ['code'],
    response_modes_supported: ['query', 'fragment', 'form_post'],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    revocation_endpoint: `${ISSUER}/oauth2/revoke`,
    revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    introspection_endpoint: `${ISSUER}/oauth2/introspect`,
    introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    scopes_supported: [
      'address',
      'admin',
      'admin:read',
      'admin:write',
      'email',
      'offline_access',
      'openid',
      'phone',
      'profile',
      'read',
      'write',
    ],
    code_challenge_methods_supported: ['S256'],
    dpop_signing_alg_values_supported: ['ES256', 'EdDSA', 'RS256', 'PS256'],
    authorization_response_iss_parameter_supported: true,
    // No RESOURCES_FILE: the admin API, which every server has, alone.
    protected_resources: [`${ISSUER}/admin/v1`],
  });
  const openid = (await app.inject({ url: '/.well-known/openid-configuration' })).json();
  t.same(
    [openid.scopes_supported, openid.authorization_response_iss_parameter_supported],
    [res.json().scopes_supported, true],
    'the OpenID document lists offline_access (SEP-2207) and iss (RFC 9207 §3) too',
  );

  t.test('lists only what registered clients enable', async (t) => {
    const { app } = await buildTestServer(t, { clients: [TEST_CLIENTS[0]] });
    const metadata = (await app.inject({ url: '/.well-known/oauth-authorization-server' })).json();
    t.same(metadata.token_endpoint_auth_methods_supported, ['client_secret_basic']);
    t.same(metadata.grant_types_supported, ['client_credentials']);
    t.same(metadata.response_types_supported, []);
    t.equal(metadata.authorization_endpoint, `${ISSUER}/oauth2/authorize`, 'RFC 8414 §2 REQUIRED: listed even when no client uses it');
    t.same(
      metadata.scopes_supported,
      ['admin', 'admin:read', 'admin:write', 'read', 'write'],
      'no identity scopes without a client of the authorization endpoint; the admin API scopes',
    );
    t.equal(metadata.prompt_values_supported, undefined);
    t.equal(metadata.end_session_endpoint, undefined);
    t.equal(metadata.userinfo_endpoint, undefined);
    const openid = (await app.inject({ url: '/.well-known/openid-configuration' })).json();
    t.equal(openid.authorization_endpoint, `${ISSUER}/oauth2/authorize`, 'OpenID Connect Discovery §3: REQUIRED');
  });

  t.test('a private_key_jwt client: the method and its signing algorithms at all three endpoints (RFC 8414 §2)', async (t) => {
    const keyed = {
      client_id: 'keyed',
      grant_types: ['client_credentials'],
      token_endpoint_auth_method: 'private_key_jwt',
      jwks_uri: 'https://keyed.example.com/jwks.json',
    };
    const { app } = await buildTestServer(t, { clients: [TEST_CLIENTS[0], keyed] });
    const metadata = (await app.inject({ url: '/.well-known/oauth-authorization-server' })).json();
    const algorithms = ['ES256', 'EdDSA', 'Ed25519', 'RS256', 'PS256'];
    t.same(metadata.token_endpoint_auth_methods_supported, ['client_secret_basic', 'private_key_jwt']);
    t.same(metadata.token_endpoint_auth_signing_alg_values_supported, algorithms);
    t.same(metadata.revocation_endpoint_auth_methods_supported, ['client_secret_basic', 'private_key_jwt']);
    t.same(metadata.revocation_endpoint_auth_signing_alg_values_supported, algorithms);
    t.same(metadata.introspection_endpoint_auth_methods_supported, ['client_secret_basic', 'private_key_jwt']);
    t.same(metadata.introspection_endpoint_auth_signing_alg_values_supported, algorithms);
    const openid = (await app.inject({ url: '/.well-known/openid-configuration' })).json();
    t.same(openid.token_endpoint_auth_signing_alg_values_supported, algorithms, 'OpenID Connect Discovery §3 too');
    const secretOnly = await buildTestServer(t, { clients: [TEST_CLIENTS[0]] });
    const without = (await secretOnly.app.inject({ url: '/.well-known/oauth-authorization-server' })).json();
    t.equal(without.token_endpoint_auth_signing_alg_values_supported, undefined, 'not without a private_key_jwt client');
  });

  t.test('ID-JAG: authorization_grant_profiles_supported (Enterprise-Managed Authorization §6)', async (t) => {
    const provider = (idJag: boolean) => ({
      id: 'corp',
      type: 'oidc',
      name: 'Corporate SSO',
      issuer: 'https://login.example.com',
      client_id: 'our-client',
      client_secret: 'our-secret',
      id_jag: idJag,
    });
    const agent = { ...TEST_CLIENTS[0], client_id: 'agent', grant_types: [JWT_BEARER] };
    const metadataOf = async (providers: unknown[] | undefined, clients: unknown[]) => {
      const { app } = await buildTestServer(t, { clients, ...(providers ? { providers } : {}) });
      const oauth = (await app.inject({ url: '/.well-known/oauth-authorization-server' })).json();
      const openid = (await app.inject({ url: '/.well-known/openid-configuration' })).json();
      t.same(openid.authorization_grant_profiles_supported, oauth.authorization_grant_profiles_supported, 'both documents agree');
      return oauth;
    };
    const enabled = await metadataOf([provider(true)], [TEST_CLIENTS[0], agent]);
    t.same(enabled.authorization_grant_profiles_supported, ['urn:ietf:params:oauth:grant-profile:id-jag']);
    t.same(enabled.grant_types_supported, ['client_credentials', JWT_BEARER], 'beside the JWT bearer grant it profiles');

    const notTrusted = await metadataOf([provider(false)], [TEST_CLIENTS[0], agent]);
    t.equal(notTrusted.authorization_grant_profiles_supported, undefined, 'no provider with id_jag: true');
    const noProviders = await metadataOf(undefined, [TEST_CLIENTS[0]]);
    t.equal(noProviders.authorization_grant_profiles_supported, undefined, 'no IDENTITY_PROVIDERS_FILE');
    const noClient = await metadataOf([provider(true)], [TEST_CLIENTS[0]]);
    t.equal(noClient.authorization_grant_profiles_supported, undefined, 'no client may use the JWT bearer grant');
    t.same(noClient.grant_types_supported, ['client_credentials']);
  });

  t.test('with resources: protected_resources (RFC 9728 §4); scopes_supported adds theirs', async (t) => {
    const { app } = await buildTestServer(t, { clients: [TEST_CLIENTS[1]], resources: RESOURCES });
    const metadata = (await app.inject({ url: '/.well-known/oauth-authorization-server' })).json();
    t.same(
      metadata.protected_resources,
      [MCP, API, 'https://files.example.com/store?tenant=a', `${ISSUER}/admin/v1`],
      'the admin API last',
    );
    t.same(
      metadata.scopes_supported,
      ['admin:read', 'admin:write', 'files:read', 'files:write', 'read', 'tools', 'write'],
      'the union of the clients and the resources',
    );
    t.equal(metadata.resource_indicators_supported, undefined, 'no field a spec does not define');
  });

  t.test('an issuer with a path serves endpoints below it', async (t) => {
    const { app } = await buildTestServer(t, { env: { ISSUER: 'https://example.com/tenant-a' } });
    const metadata = (await app.inject({ url: '/.well-known/oauth-authorization-server/tenant-a' })).json();
    t.equal(metadata.token_endpoint, 'https://example.com/tenant-a/oauth2/token');
    t.equal(metadata.jwks_uri, 'https://example.com/tenant-a/.well-known/jwks.json');
    t.equal((await app.inject({ url: '/tenant-a/.well-known/jwks.json' })).statusCode, 200);
    const token = await app.inject({
      method: 'POST',
      url: '/tenant-a/oauth2/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'grant_type=client_credentials',
    });
    t.equal(token.json().error, 'invalid_client', 'the token endpoint answers below the issuer path');
  });
});

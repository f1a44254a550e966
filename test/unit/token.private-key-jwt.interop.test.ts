import * as oauth from 'oauth4webapi';
import * as client from 'openid-client';
import t, { type Test } from 'tap';
import { freePort } from '../../harness/ports.js';
import { type ClientKey, clientKey, jwksOf } from '../helpers/client-keys.js';
import { buildTestServer } from '../helpers/server.js';

/**
 * private_key_jwt with clients we did not write, over a real socket (plain http on loopback,
 * the issuer being that address): openid-client's PrivateKeyJwt for client credentials, and
 * oauth4webapi's at the token, introspection and revocation endpoints. Each library signs
 * its own assertions (its own jti, iat, exp and aud: our issuer identifier; an Ed25519 key
 * under the fully-specified alg Ed25519 of RFC 9864, not EdDSA).
 */

/** The key as the libraries take it (the same WebCrypto key jose generated). */
const privateKey = (key: ClientKey): oauth.PrivateKey => ({ key: key.privateKey as oauth.PrivateKey['key'], kid: key.kid });

async function listening(t: Test) {
  const [service, rs] = await Promise.all([clientKey('ES256', 'service-key'), clientKey('EdDSA', 'rs-key')]);
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const keyed = { token_endpoint_auth_method: 'private_key_jwt', grant_types: ['client_credentials'] };
  const server = await buildTestServer(t, {
    env: { ISSUER: issuer },
    clients: [
      { ...keyed, client_id: 'keyed-service', jwks: jwksOf(service), scope: 'read write' },
      { ...keyed, client_id: 'keyed-rs', jwks: jwksOf(rs), introspect_all_tokens: true },
    ],
  });
  // The clock the libraries sign with is the real one: the server's follows it here.
  server.clock.now = Date.now();
  await server.app.listen({ port, host: '127.0.0.1' });
  return { issuer, service, rs };
}

t.test('openid-client: PrivateKeyJwt authenticates a client_credentials request', async (t) => {
  const { issuer, service } = await listening(t);
  const config = await client.discovery(new URL(issuer), 'keyed-service', undefined, client.PrivateKeyJwt(privateKey(service)), {
    execute: [client.allowInsecureRequests],
    algorithm: 'oauth2',
  });
  t.match(config.serverMetadata().token_endpoint_auth_methods_supported, ['private_key_jwt']);
  const tokens = await client.clientCredentialsGrant(config, { scope: 'read' });
  t.equal(tokens.token_type, 'bearer');
  t.equal(tokens.scope, 'read');
  t.ok(tokens.access_token);
  const again = await client.clientCredentialsGrant(config, { scope: 'write' });
  t.equal(again.scope, 'write', 'a second request signs a fresh assertion');
});

t.test('oauth4webapi: PrivateKeyJwt at the token, introspection and revocation endpoints; a replay is refused', async (t) => {
  const { issuer, service, rs } = await listening(t);
  const insecure = { [oauth.allowInsecureRequests]: true };
  const as = await oauth.processDiscoveryResponse(
    new URL(issuer),
    await oauth.discoveryRequest(new URL(issuer), { algorithm: 'oauth2', ...insecure }),
  );
  const serviceAuth = oauth.PrivateKeyJwt(privateKey(service));
  const rsAuth = oauth.PrivateKeyJwt(privateKey(rs));
  const serviceClient = { client_id: 'keyed-service' };
  const rsClient = { client_id: 'keyed-rs' };

  let sent: { url: string; init: RequestInit } | undefined;
  const recording = {
    ...insecure,
    [oauth.customFetch]: (url: string, init: RequestInit) => {
      sent = { url, init };
      return fetch(url, init);
    },
  };
  const granted = await oauth.processClientCredentialsResponse(
    as,
    serviceClient,
    await oauth.clientCredentialsGrantRequest(as, serviceClient, serviceAuth, new URLSearchParams({ scope: 'read write' }), recording),
  );
  t.equal(granted.scope, 'read write');

  const replay = await fetch((sent as { url: string }).url, (sent as { init: RequestInit }).init);
  t.equal(replay.status, 401, 'the same request again: its assertion was used');
  t.same(await replay.json(), { error: 'invalid_client', error_description: 'client authentication failed' });

  const introspected = await oauth.processIntrospectionResponse(
    as,
    rsClient,
    await oauth.introspectionRequest(as, rsClient, rsAuth, granted.access_token, insecure),
  );
  t.match(introspected, { active: true, client_id: 'keyed-service', scope: 'read write' });

  await oauth.processRevocationResponse(await oauth.revocationRequest(as, serviceClient, serviceAuth, granted.access_token, insecure));
  const after = await oauth.processIntrospectionResponse(
    as,
    rsClient,
    await oauth.introspectionRequest(as, rsClient, rsAuth, granted.access_token, insecure),
  );
  t.same(after, { active: false }, 'revoked');
});

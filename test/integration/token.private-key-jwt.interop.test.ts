import { decodeJwt } from 'jose';
import * as oauth from 'oauth4webapi';
import * as client from 'openid-client';
import t, { type Test } from 'tap';
import { freePort } from '../../harness/ports.js';
import { ALICE, testUsers } from '../helpers/authorize-fixtures.js';
import { type ClientKey, clientKey, jwksOf } from '../helpers/client-keys.js';
import { approveOverHttp } from '../helpers/http-browser.js';
import { buildTestServer } from '../helpers/server.js';

/**
 * private_key_jwt with clients we did not write, over a real socket (plain http on loopback,
 * the issuer being that address): openid-client's PrivateKeyJwt for client credentials and
 * for the code flow with a refresh, and oauth4webapi's for the code flow with a refresh and
 * at the token, introspection and revocation endpoints. Each library signs its own assertions
 * (its own jti, iat, exp and aud: our issuer identifier, alone, so the server runs with
 * CLIENT_ASSERTION_STRICT_AUDIENCE=true; an Ed25519 key under the
 * fully-specified alg Ed25519 of RFC 9864, not EdDSA). The user signs in and consents over
 * HTTP as a browser would (test/helpers/http-browser.ts). The MCP SDK's provider:
 * token.private-key-jwt.mcp-sdk.test.ts.
 */

/** The key as the libraries take it (the same WebCrypto key jose generated). */
const privateKey = (key: ClientKey): oauth.PrivateKey => ({ key: key.privateKey as oauth.PrivateKey['key'], kid: key.kid });

const REDIRECT = 'https://keyed.example.com/cb';

async function listening(t: Test) {
  const [service, rs, web] = await Promise.all([
    clientKey('ES256', 'service-key'),
    clientKey('EdDSA', 'rs-key'),
    clientKey('PS256', 'web'),
  ]);
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const keyed = { token_endpoint_auth_method: 'private_key_jwt', grant_types: ['client_credentials'] };
  const server = await buildTestServer(t, {
    // The libraries name our issuer identifier alone (RFC 7523bis): they pass the strict setting.
    env: { ISSUER: issuer, CLIENT_ASSERTION_STRICT_AUDIENCE: 'true' },
    users: testUsers(),
    clients: [
      { ...keyed, client_id: 'keyed-service', jwks: jwksOf(service), scope: 'read write' },
      { ...keyed, client_id: 'keyed-rs', jwks: jwksOf(rs), introspect_all_tokens: true },
      {
        ...keyed,
        client_id: 'keyed-web',
        jwks: jwksOf(web),
        grant_types: ['authorization_code', 'refresh_token'],
        redirect_uris: [REDIRECT],
        scope: 'read',
      },
    ],
  });
  // The clock the libraries sign with is the real one: the server's follows it here.
  server.clock.now = Date.now();
  await server.app.listen({ port, host: '127.0.0.1' });
  return { issuer, service, rs, web };
}

/** The claims of an access token of the code flow: alice's, issued to keyed-web. */
const ALICES = { sub: 'user-alice', client_id: 'keyed-web', scope: 'read' };

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

t.test('oauth4webapi: PrivateKeyJwt through the code flow (PKCE) and a refresh', async (t) => {
  const { issuer, web } = await listening(t);
  const insecure = { [oauth.allowInsecureRequests]: true };
  const as = await oauth.processDiscoveryResponse(
    new URL(issuer),
    await oauth.discoveryRequest(new URL(issuer), { algorithm: 'oauth2', ...insecure }),
  );
  const webClient = { client_id: 'keyed-web' };
  const webAuth = oauth.PrivateKeyJwt(privateKey(web));
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const authorizationUrl = new URL(as.authorization_endpoint as string);
  for (const [name, value] of Object.entries({
    response_type: 'code',
    client_id: webClient.client_id,
    redirect_uri: REDIRECT,
    scope: 'read',
    state,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  }))
    authorizationUrl.searchParams.set(name, value);
  const arrived = await approveOverHttp(issuer, Object.fromEntries(authorizationUrl.searchParams), ALICE);
  const callback = oauth.validateAuthResponse(as, webClient, new URL(arrived), state);
  const tokens = await oauth.processAuthorizationCodeResponse(
    as,
    webClient,
    await oauth.authorizationCodeGrantRequest(as, webClient, webAuth, callback, REDIRECT, verifier, insecure),
  );
  t.match(decodeJwt(tokens.access_token), ALICES, 'the code redeemed with an assertion');
  t.ok(tokens.refresh_token);
  const refreshed = await oauth.processRefreshTokenResponse(
    as,
    webClient,
    await oauth.refreshTokenGrantRequest(as, webClient, webAuth, tokens.refresh_token as string, insecure),
  );
  t.match(decodeJwt(refreshed.access_token), ALICES, 'refreshed with another assertion');
  t.not(refreshed.refresh_token, tokens.refresh_token, 'rotated');
});

t.test('openid-client: PrivateKeyJwt through the code flow (PKCE) and a refresh', async (t) => {
  const { issuer, web } = await listening(t);
  const config = await client.discovery(new URL(issuer), 'keyed-web', undefined, client.PrivateKeyJwt(privateKey(web)), {
    execute: [client.allowInsecureRequests],
    algorithm: 'oauth2',
  });
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const authorizationUrl = client.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT,
    scope: 'read',
    state,
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  });
  const arrived = await approveOverHttp(issuer, Object.fromEntries(authorizationUrl.searchParams), ALICE);
  const tokens = await client.authorizationCodeGrant(config, new URL(arrived), { pkceCodeVerifier: verifier, expectedState: state });
  t.match(decodeJwt(tokens.access_token), ALICES, 'the code redeemed with an assertion');
  const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token as string);
  t.match(decodeJwt(refreshed.access_token), ALICES, 'refreshed with another assertion');
  t.not(refreshed.refresh_token, tokens.refresh_token, 'rotated');
});

import type { Test } from 'tap';
import { ALICE } from '../helpers/authorize-fixtures.js';
import { InjectBrowser, pkcePair, redirectParams, signInAndDecide } from '../helpers/browser-flow.js';
import { assertionParams, clientAssertion, clientKey, jwksOf } from '../helpers/client-keys.js';
import { expectOAuthError } from '../helpers/oauth-error.js';
import { metadataError } from '../helpers/refused-metadata.js';
import { NATIVE_CLIENT, type RegistrationServer, registrationServer, WEB_CLIENT } from '../helpers/registration.js';
import { claimsOf, MCP } from '../helpers/resource-fixtures.js';
import { basic, FORM_HEADERS, form, ISSUER, NO_STORE_JSON } from '../helpers/server.js';
import type { OpenStore } from '../helpers/stores.js';
import { TokenClient } from '../helpers/token-client.js';

/** POST /oauth2/register (RFC 7591), then using what was registered. The same on every store. */

async function publicCodeFlow(t: Test, server: RegistrationServer, clientId: string) {
  const { verifier, challenge } = pkcePair();
  // RFC 8252 §7.3: any port for the loopback redirect URI registered without one.
  const redirectUri = 'http://127.0.0.1:49152/callback';
  const params = {
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirectUri,
    scope: 'tools',
    state: 's',
    code_challenge: challenge,
    code_challenge_method: 'S256',
  };
  const approved = await signInAndDecide(new InjectBrowser(server.app), params, ALICE, 'allow', [MCP]);
  t.equal(approved.statusCode, 303);
  t.ok((approved.headers.location as string).startsWith(`${redirectUri}?`), 'the code goes to the port the request named');
  const code = redirectParams(approved.headers.location as string).code as string;
  const client = new TokenClient(server.app, clientId, null);
  const tokens = await client.token({ grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: verifier }, [MCP]);
  t.equal(tokens.statusCode, 200, 'the code is redeemed with client_id and the verifier');
  t.match(claimsOf(tokens.json().access_token), { aud: MCP, client_id: clientId, sub: 'user-alice', scope: 'tools' });
  const refreshed = await client.refresh(tokens.json().refresh_token, {}, [MCP]);
  t.equal(refreshed.statusCode, 200, 'and refreshed with resource');
  t.match(claimsOf(refreshed.json().access_token), { aud: MCP, client_id: clientId });
}

export function registrationSuite(t: Test, name: string, open: OpenStore): void {
  t.test(`a public native client registers, then runs the code flow with PKCE and resource, and refreshes (${name})`, async (t) => {
    const server = await registrationServer(t, await open(t));
    const res = await server.register({
      ...NATIVE_CLIENT,
      contacts: ['ops@example.org'],
      tos_uri: 'https://x.example/tos',
      logo_uri: null,
    });
    t.equal(res.statusCode, 201);
    t.match(res.headers, NO_STORE_JSON);
    const info = res.json();
    t.match(info.client_id, /^dyn_[A-Za-z0-9_-]{22}$/);
    t.match(info.registration_access_token, /^[A-Za-z0-9_-]{43}$/);
    t.same(info, {
      client_id: info.client_id,
      client_id_issued_at: Math.floor(server.clock.now / 1000),
      registration_access_token: info.registration_access_token,
      registration_client_uri: `${ISSUER}/oauth2/register/${info.client_id}`,
      ...NATIVE_CLIENT,
      application_type: 'native',
    });
    await publicCodeFlow(t, server, info.client_id);
  });

  t.test(`a confidential client gets a secret and may present it by HTTP Basic or in the body (${name})`, async (t) => {
    const server = await registrationServer(t, await open(t));
    const info = await server.registered(t, { ...WEB_CLIENT, scope: 'read write', software_id: 'example-app', software_version: '2.1' });
    t.match(info.client_secret, /^[A-Za-z0-9_-]{43}$/, 'a 256-bit secret');
    t.same(Object.keys(info).sort(), [
      'application_type',
      'client_id',
      'client_id_issued_at',
      'client_name',
      'client_secret',
      'client_secret_expires_at',
      'grant_types',
      'redirect_uris',
      'registration_access_token',
      'registration_client_uri',
      'response_types',
      'scope',
      'software_id',
      'software_version',
      'token_endpoint_auth_method',
    ]);
    t.match(info, { token_endpoint_auth_method: 'client_secret_basic', client_secret_expires_at: 0, application_type: 'web' });
    const { verifier, challenge } = pkcePair();
    const newCode = async () => {
      const params = {
        response_type: 'code',
        client_id: info.client_id,
        scope: 'read',
        code_challenge: challenge,
        code_challenge_method: 'S256',
      };
      const approved = await signInAndDecide(new InjectBrowser(server.app), params, ALICE);
      return redirectParams(approved.headers.location as string).code as string;
    };
    const redeem = (headers: Record<string, string>, extra: Record<string, string>) =>
      server.app.inject({
        method: 'POST',
        url: '/oauth2/token',
        headers: { ...FORM_HEADERS, ...headers },
        payload: form({ grant_type: 'authorization_code', code: extra.code as string, code_verifier: verifier, ...extra }),
      });
    const byBasic = await redeem({ authorization: basic(info.client_id, info.client_secret as string) }, { code: await newCode() });
    t.equal(byBasic.statusCode, 200, 'client_secret_basic');
    t.match(claimsOf(byBasic.json().access_token), { client_id: info.client_id, aud: ISSUER, scope: 'read' });
    const byBody = await redeem({}, { code: await newCode(), client_id: info.client_id, client_secret: info.client_secret as string });
    t.equal(byBody.statusCode, 200, 'client_secret_post');
    const wrong = await redeem({ authorization: basic(info.client_id, 'not-the-secret') }, { code: await newCode() });
    expectOAuthError(t, wrong, { status: 401, error: 'invalid_client', description: 'client authentication failed' });
    const anonymous = await redeem({}, { code: await newCode(), client_id: info.client_id });
    expectOAuthError(t, anonymous, { status: 401, error: 'invalid_client', description: 'client authentication failed' });
  });

  t.test(`DYNAMIC_CLIENT_GRANTS may add client_credentials, for confidential clients only (${name})`, async (t) => {
    const server = await registrationServer(t, await open(t), { DYNAMIC_CLIENT_GRANTS: 'client_credentials' });
    expectOAuthError(
      t,
      await server.register({ grant_types: ['client_credentials'], token_endpoint_auth_method: 'none' }),
      metadataError('grant_types: client_credentials needs a confidential client (token_endpoint_auth_method is none)'),
    );
    expectOAuthError(
      t,
      await server.register(NATIVE_CLIENT),
      metadataError('grant_types: authorization_code is not available to dynamically registered clients'),
    );
    const info = await server.registered(t, {
      grant_types: ['client_credentials'],
      token_endpoint_auth_method: 'client_secret_post',
      scope: 'read',
    });
    t.same(info.response_types, [], 'no response type without authorization_code');
    t.same(info.redirect_uris, []);
    const explicit = await server.registered(t, { grant_types: ['client_credentials'], response_types: [] });
    t.same(explicit.response_types, [], 'an empty response_types is accepted for a machine client');
    const res = await new TokenClient(server.app, info.client_id, info.client_secret as string).token({ grant_type: 'client_credentials' });
    t.equal(res.statusCode, 200);
    t.match(claimsOf(res.json().access_token), { sub: info.client_id, client_id: info.client_id, scope: 'read' });
  });

  t.test(`a private_key_jwt client registers its public keys, gets no secret, and authenticates with them (${name})`, async (t) => {
    const server = await registrationServer(t, await open(t), { DYNAMIC_CLIENT_GRANTS: 'client_credentials' });
    const [key, next] = await Promise.all([clientKey('ES256', 'k1'), clientKey('EdDSA', 'k2')]);
    const metadata = {
      grant_types: ['client_credentials'],
      token_endpoint_auth_method: 'private_key_jwt',
      jwks: jwksOf(key),
      token_endpoint_auth_signing_alg: 'ES256',
      scope: 'read',
    };
    const info = await server.registered(t, metadata);
    t.match(info, metadata, 'the keys and the algorithm are registered and returned');
    t.equal(info.client_secret, undefined, 'no secret');
    t.equal(info.client_secret_expires_at, undefined);
    const now = () => Math.floor(server.clock.now / 1000);
    const post = async (signer = key) =>
      server.app.inject({
        method: 'POST',
        url: '/oauth2/token',
        headers: FORM_HEADERS,
        payload: form({
          grant_type: 'client_credentials',
          ...assertionParams(await clientAssertion(signer, info.client_id, { now: now() })),
        }),
      });
    const res = await post();
    t.equal(res.statusCode, 200);
    t.match(claimsOf(res.json().access_token), { sub: info.client_id, client_id: info.client_id, scope: 'read' });
    const failed = { status: 401, error: 'invalid_client', description: 'client authentication failed' };
    expectOAuthError(t, await post(next), failed);
    const { registration_access_token: token } = info;
    const rotated = { ...metadata, client_id: info.client_id, jwks: jwksOf(key, next), token_endpoint_auth_signing_alg: undefined };
    t.equal((await server.manage('PUT', info.client_id, token, rotated)).statusCode, 200, 'a new key added by an update');
    t.equal((await post(next)).statusCode, 200, 'and used');
    expectOAuthError(
      t,
      await server.manage('PUT', info.client_id, token, { ...rotated, jwks: undefined, token_endpoint_auth_method: 'client_secret_basic' }),
      metadataError(
        'token_endpoint_auth_method cannot change between none, a client secret and private_key_jwt: register a new client instead',
      ),
    );
    const byUri = await server.registered(t, { ...metadata, jwks: undefined, jwks_uri: 'https://keys.example.org/jwks.json' });
    t.equal(byUri.jwks_uri, 'https://keys.example.org/jwks.json', 'or a jwks_uri');
  });
}

import type { Test } from 'tap';
import { hashClientSecret } from '../../src/clients/secret.js';
import { ALICE } from '../helpers/authorize-fixtures.js';
import { InjectBrowser, pkcePair, signInAndDecide } from '../helpers/browser-flow.js';
import { expectOAuthError } from '../helpers/oauth-error.js';
import { NATIVE_CLIENT, registrationServer, WEB_CLIENT } from '../helpers/registration.js';
import { ISSUER, NO_STORE_JSON } from '../helpers/server.js';
import type { OpenStore } from '../helpers/stores.js';
import { TokenClient } from '../helpers/token-client.js';

/**
 * The client configuration endpoint (RFC 7592), expiry of unused registrations, the rate
 * limit and the initial access token. The same on every store.
 */

const INVALID_TOKEN = 'the registration access token is invalid, or the client is not registered';
const invalidToken = (description = INVALID_TOKEN) => ({
  status: 401,
  error: 'invalid_token',
  description,
  headers: { 'www-authenticate': `Bearer realm="${ISSUER}", error="invalid_token", error_description="${description}"` },
});
const CLIENT_AUTH_FAILED = { status: 401, error: 'invalid_client', description: 'client authentication failed' };

export function registrationManagementSuite(t: Test, name: string, open: OpenStore): void {
  t.test(`GET, PUT, DELETE /oauth2/register/<client_id> with the registration access token (${name})`, async (t) => {
    const server = await registrationServer(t, await open(t));
    const info = await server.registered(t, WEB_CLIENT);
    const other = await server.registered(t, NATIVE_CLIENT);
    const token = info.registration_access_token;
    const { client_secret: secret, ...withoutSecret } = info;

    t.test('read: the registration, without the secret (only its digest is kept)', async (t) => {
      const read = await server.manage('GET', info.client_id, token);
      t.equal(read.statusCode, 200);
      t.match(read.headers, NO_STORE_JSON);
      t.same(read.json(), withoutSecret);
    });

    t.test('a wrong token, another client token, no token, an unknown client: 401 invalid_token', async (t) => {
      expectOAuthError(t, await server.manage('GET', info.client_id, 'wrong-token'), invalidToken());
      expectOAuthError(t, await server.manage('GET', info.client_id, other.registration_access_token), invalidToken());
      expectOAuthError(t, await server.manage('GET', 'dyn_AAAAAAAAAAAAAAAAAAAAAA', token), invalidToken());
      // A file client is never managed here.
      expectOAuthError(t, await server.manage('GET', 'web', token), invalidToken());
      expectOAuthError(t, await server.manage('DELETE', info.client_id, undefined), {
        status: 401,
        error: 'invalid_token',
        description: 'a registration access token is required',
        headers: { 'www-authenticate': `Bearer realm="${ISSUER}"` },
      });
    });

    t.test('update: replaces the metadata, keeps id, secret and token; refuses what it must', async (t) => {
      const id = info.client_id;
      const changed = { ...withoutSecret, client_name: 'Renamed app', redirect_uris: ['https://app.example.org/new'], client_id: id };
      const updated = await server.manage('PUT', id, token, changed);
      t.equal(updated.statusCode, 200);
      t.match(updated.json(), { client_id: id, client_name: 'Renamed app', redirect_uris: ['https://app.example.org/new'] });
      t.equal(updated.json().client_secret, undefined, 'no secret unless the request presented it');
      t.equal(updated.json().client_id_issued_at, info.client_id_issued_at);
      const withSecret = await server.manage('PUT', id, token, { ...changed, client_secret: secret });
      t.equal(withSecret.json().client_secret, secret, 'a presented secret is confirmed, never changed');
      const { challenge } = pkcePair();
      const oldUri = await new InjectBrowser(server.app).get(
        `/oauth2/authorize?response_type=code&client_id=${id}&redirect_uri=${encodeURIComponent(WEB_CLIENT.redirect_uris[0] as string)}&code_challenge=${challenge}&code_challenge_method=S256`,
      );
      t.equal(oldUri.statusCode, 400, 'the replaced redirect URI is no longer accepted');
      t.match(oldUri.body, 'the redirect_uri is not registered for this client');
      const stillWorks = await new TokenClient(server.app, id, secret as string).revoke('anything');
      t.equal(stillWorks.statusCode, 200, 'the secret still authenticates');
      expectOAuthError(t, await server.manage('PUT', id, token, { ...changed, client_id: other.client_id }), {
        status: 400,
        error: 'invalid_client_metadata',
        description: 'client_id must be present and be this client identifier',
      });
      expectOAuthError(t, await server.manage('PUT', id, token, { ...changed, client_secret: 'guess' }), {
        status: 400,
        error: 'invalid_client_metadata',
        description: 'client_secret does not match the secret issued to this client',
      });
      expectOAuthError(t, await server.manage('PUT', id, token, { ...changed, token_endpoint_auth_method: 'none' }), {
        status: 400,
        error: 'invalid_client_metadata',
        description:
          'token_endpoint_auth_method cannot change between none, a client secret and private_key_jwt: register a new client instead',
      });
      expectOAuthError(t, await server.manage('PUT', id, token, { ...changed, redirect_uris: ['http://evil.example/cb'] }), {
        status: 400,
        error: 'invalid_redirect_uri',
        description: 'redirect_uris[0]: http is allowed only for a loopback address (127.0.0.1, [::1] or localhost); use https',
      });
      expectOAuthError(t, await server.manage('PUT', id, 'wrong-token', changed), invalidToken());
    });

    t.test('delete: 204; then the token and the client are unknown everywhere', async (t) => {
      const id = info.client_id;
      const deleted = await server.manage('DELETE', id, token);
      t.equal(deleted.statusCode, 204);
      t.equal(deleted.headers['cache-control'], 'no-store');
      t.equal(deleted.body, '');
      expectOAuthError(t, await server.manage('GET', id, token), invalidToken());
      expectOAuthError(t, await server.manage('DELETE', id, token), invalidToken());
      expectOAuthError(t, await new TokenClient(server.app, id, secret as string).revoke('anything'), CLIENT_AUTH_FAILED);
      t.equal((await server.manage('GET', other.client_id, other.registration_access_token)).statusCode, 200, 'others stay');
    });
  });

  t.test(`every registration response goes back through PUT unchanged (RFC 7592 §2.2) (${name})`, async (t) => {
    const server = await registrationServer(t, await open(t), {
      DYNAMIC_CLIENT_GRANTS: 'authorization_code,refresh_token,client_credentials',
    });
    const registrations: Record<string, unknown>[] = [
      NATIVE_CLIENT,
      { ...WEB_CLIENT, scope: 'read write', client_uri: 'https://app.example.org/', logo_uri: 'https://app.example.org/logo.png' },
      { ...WEB_CLIENT, token_endpoint_auth_method: 'client_secret_post', software_id: 'example-app', software_version: '2.1' },
      { grant_types: ['client_credentials'], scope: 'read' },
      { grant_types: ['client_credentials'], response_types: [], token_endpoint_auth_method: 'client_secret_post' },
      { ...NATIVE_CLIENT, redirect_uris: ['com.example.app:/cb', 'http://localhost:6274/cb'], dpop_bound_access_tokens: true },
      {
        redirect_uris: ['https://app.example.org/native'],
        application_type: 'native',
        grant_types: ['authorization_code', 'client_credentials'],
      },
      {
        ...WEB_CLIENT,
        post_logout_redirect_uris: ['https://app.example.org/signed-out'],
        id_token_signed_response_alg: 'EdDSA',
        default_max_age: 600,
        require_auth_time: true,
      },
      { ...NATIVE_CLIENT, post_logout_redirect_uris: ['http://127.0.0.1/bye'], default_max_age: 0, id_token_signed_response_alg: 'RS256' },
    ];
    for (const body of registrations) {
      const info = await server.registered(t, body);
      const { client_secret: _secret, ...withoutSecret } = info;
      const put = await server.manage('PUT', info.client_id, info.registration_access_token, info);
      t.equal(put.statusCode, 200, `PUT ${JSON.stringify(body)}`);
      t.same(put.json(), info, 'the answer to the PUT is the registration response');
      t.same((await server.manage('GET', info.client_id, info.registration_access_token)).json(), withoutSecret, 'and nothing changed');
    }
  });

  t.test(`an unused registration expires after DYNAMIC_CLIENT_TTL; a use restarts it, at most once an interval (${name})`, async (t) => {
    // TTL one day: a use restarts the expiry once at least an hour (a tenth, at most an hour) has passed since the last restart.
    const server = await registrationServer(t, await open(t), { DYNAMIC_CLIENT_TTL: '86400' });
    const registrations = server.store.clientRegistrations;
    const kept = await server.registered(t, NATIVE_CLIENT);
    const unused = await server.registered(t, NATIVE_CLIENT);
    const use = (clientId: string) => new TokenClient(server.app, clientId, null).revoke('anything');
    const expiry = async (clientId: string) => (await registrations.findClientRegistration(clientId))?.expiresAt;
    /** Redis reports the time left in milliseconds as it elapses: compare within a second. */
    const expiresNear = async (clientId: string, expected: number, message: string) => {
      const actual = (await expiry(clientId)) as number;
      t.ok(Math.abs(actual - expected) < 1000, `${message} (off by ${actual - expected} ms)`);
    };
    const firstExpiry = server.clock.now + 86_400_000;
    await expiresNear(kept.client_id, firstExpiry, 'registered for DYNAMIC_CLIENT_TTL');

    await server.advance(1800);
    t.equal((await use(kept.client_id)).statusCode, 200);
    await expiresNear(kept.client_id, firstExpiry, 'used within the interval: no write');
    await server.advance(1800);
    t.equal((await use(kept.client_id)).statusCode, 200);
    await expiresNear(kept.client_id, server.clock.now + 86_400_000, 'used an hour after the last restart: restarted');

    await server.advance(86_400 - 3600 + 1);
    expectOAuthError(t, await use(unused.client_id), CLIENT_AUTH_FAILED);
    expectOAuthError(t, await server.manage('GET', unused.client_id, unused.registration_access_token), invalidToken());
    t.equal(await registrations.findClientRegistration(unused.client_id), undefined, 'gone from the store');
    const { challenge } = pkcePair();
    const login = await new InjectBrowser(server.app).get(
      `/oauth2/authorize?response_type=code&client_id=${kept.client_id}&redirect_uri=http%3A%2F%2F127.0.0.1%3A5000%2Fcallback&code_challenge=${challenge}&code_challenge_method=S256`,
    );
    t.equal(login.statusCode, 200, 'the client used since lives on');
    await expiresNear(kept.client_id, server.clock.now + 86_400_000, 'an authorization request is a use too');
    await server.advance(86_399);
    t.equal((await use(kept.client_id)).statusCode, 200, 'a second before its expiry');
    await server.advance(86_401);
    expectOAuthError(t, await use(kept.client_id), CLIENT_AUTH_FAILED);
  });

  t.test(`REGISTRATION_RATE_LIMIT per address, reserved before the check (${name})`, async (t) => {
    const server = await registrationServer(t, await open(t), { REGISTRATION_RATE_LIMIT: '3', REGISTRATION_RATE_WINDOW: '600' });
    const results = await Promise.all(Array.from({ length: 10 }, () => server.register(NATIVE_CLIENT, {}, '192.0.2.1')));
    t.same(results.map((r) => r.statusCode).sort(), [201, 201, 201, 429, 429, 429, 429, 429, 429, 429], '10 at once: exactly 3 registered');
    expectOAuthError(t, results.find((r) => r.statusCode === 429) as (typeof results)[number], {
      status: 429,
      error: 'invalid_request',
      description: 'too many client registrations from this address: retry after 600 seconds',
      headers: { 'retry-after': '600' },
    });
    t.equal((await server.register(NATIVE_CLIENT, {}, '192.0.2.2')).statusCode, 201, 'another address has its own count');
    const other = '192.0.2.3';
    for (let i = 0; i < 5; i += 1) t.equal((await server.register({ redirect_uris: ['javascript:x'] }, {}, other)).statusCode, 400);
    t.equal((await server.register(NATIVE_CLIENT, {}, other)).statusCode, 201, 'refused metadata registers nothing and counts nothing');
    await server.advance(600);
    t.equal((await server.register(NATIVE_CLIENT, {}, '192.0.2.1')).statusCode, 201, 'a new window');
  });

  t.test(`DYNAMIC_CLIENT_REGISTRATION=token: an initial access token as a bearer token (${name})`, async (t) => {
    const initialToken = 'initial-access-token-0123456789abcdefghijklmnop';
    const server = await registrationServer(t, await open(t), {
      DYNAMIC_CLIENT_REGISTRATION: 'token',
      REGISTRATION_INITIAL_ACCESS_TOKENS: `${hashClientSecret('another-token-0123456789abcdefghijklmnopqrst')},${hashClientSecret(initialToken)}`,
    });
    expectOAuthError(t, await server.register(NATIVE_CLIENT), {
      status: 401,
      error: 'invalid_token',
      description: 'an initial access token is required to register a client',
      headers: { 'www-authenticate': `Bearer realm="${ISSUER}"` },
    });
    expectOAuthError(
      t,
      await server.register(NATIVE_CLIENT, { authorization: 'Bearer not-the-token' }),
      invalidToken('the initial access token is invalid'),
    );
    expectOAuthError(t, await server.register(NATIVE_CLIENT, { authorization: `Basic ${initialToken}` }), {
      status: 400,
      error: 'invalid_request',
      description: `the Authorization header must be 'Bearer <token>'`,
    });
    const res = await server.register(NATIVE_CLIENT, { authorization: `Bearer ${initialToken}` });
    t.equal(res.statusCode, 201);
    const { challenge } = pkcePair();
    const approved = await signInAndDecide(
      new InjectBrowser(server.app),
      { response_type: 'code', client_id: res.json().client_id, code_challenge: challenge, code_challenge_method: 'S256' },
      ALICE,
    );
    t.equal(approved.statusCode, 303, 'the registered client works');
  });
}

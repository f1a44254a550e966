import { Writable } from 'node:stream';
import { SignJWT } from 'jose';
import type { Test } from 'tap';
import { hashClientSecret } from '../../src/clients/secret.js';
import { CLIENT_ASSERTION_TYPE } from '../../src/oauth/client-assertion.js';
import { ALICE, AUTHORIZE_CLIENTS, testUsers, WEB_SECRET } from '../helpers/authorize-fixtures.js';
import { codeRequest, InjectBrowser, pkcePair, redirectParams, signInAndDecide } from '../helpers/browser-flow.js';
import { assertionParams, clientAssertion, type ClientKey, clientKey, jwksOf, unsignedAssertion } from '../helpers/client-keys.js';
import { expectOAuthError, type InjectedResponse } from '../helpers/oauth-error.js';
import { basic, buildTestServer, FORM_HEADERS, form, ISSUER, NO_STORE_JSON } from '../helpers/server.js';
import type { OpenStore } from '../helpers/stores.js';

/**
 * private_key_jwt (RFC 7523 §2.2) at the token, revocation and introspection endpoints, the
 * same on every store: the assertion authenticates the client once, and every refusal reads
 * the same 401.
 */

const TOKEN_ENDPOINT = `${ISSUER}/oauth2/token`;
const REDIRECT = 'https://keyed.example.com/cb';

export const FAILED = {
  status: 401,
  error: 'invalid_client',
  description: 'client authentication failed',
  headers: { 'www-authenticate': `Basic realm="${ISSUER}", charset="UTF-8"` },
};

interface Keys {
  readonly service: ClientKey;
  readonly web: ClientKey;
  readonly rs: ClientKey;
  readonly stranger: ClientKey;
}

function clients(keys: Keys) {
  const keyed = { token_endpoint_auth_method: 'private_key_jwt' };
  return [
    ...AUTHORIZE_CLIENTS,
    { ...keyed, client_id: 'keyed-service', jwks: jwksOf(keys.service), grant_types: ['client_credentials'], scope: 'read write' },
    {
      ...keyed,
      client_id: 'keyed-web',
      jwks: jwksOf(keys.web),
      redirect_uris: [REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      scope: 'read',
    },
    { ...keyed, client_id: 'keyed-rs', jwks: jwksOf(keys.rs), grant_types: ['client_credentials'], introspect_all_tokens: true },
    { client_id: 'secret-service', client_secret_hash: hashClientSecret(WEB_SECRET), grant_types: ['client_credentials'], scope: 'read' },
  ];
}

async function setup(t: Test, open: OpenStore) {
  const [service, web, rs, stranger] = await Promise.all([
    clientKey('ES256', 'service'),
    clientKey('EdDSA', 'web'),
    clientKey('PS256', 'rs'),
    // Named like the service's key: only the signature tells them apart.
    clientKey('ES256', 'service'),
  ]);
  const keys = { service, web, rs, stranger };
  const lines: string[] = [];
  const logs = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const server = await buildTestServer(t, {
    clients: clients(keys),
    users: testUsers(),
    store: await open(t),
    logger: { level: 'debug', stream: logs },
  });
  const now = () => Math.floor(server.clock.now / 1000);
  const post = (path: string, params: Record<string, string>, authorization?: string) =>
    server.app.inject({
      method: 'POST',
      url: path,
      headers: { ...FORM_HEADERS, ...(authorization === undefined ? {} : { authorization }) },
      payload: form(params),
    });
  /** A fresh assertion of `clientId` signed by `key`. */
  const sign = (key: ClientKey, clientId: string, options: Omit<Parameters<typeof clientAssertion>[2], 'now'> = {}) =>
    clientAssertion(key, clientId, { now: now(), ...options });
  const token = async (key: ClientKey, clientId: string, params: Record<string, string> = { grant_type: 'client_credentials' }) =>
    post('/oauth2/token', { ...params, ...assertionParams(await sign(key, clientId)) });
  return { ...server, keys, lines, now, post, sign, token };
}

const accessTokenOf = (res: InjectedResponse) => (res.json() as { access_token: string }).access_token;

export function privateKeyJwtSuite(t: Test, open: OpenStore): void {
  t.test('POST /oauth2/token grant_type=client_credentials with private_key_jwt', async (t) => {
    t.test('the assertion authenticates the client: with client_id, or identified by its sub (RFC 7521 §4.2)', async (t) => {
      const { post, sign, keys } = await setup(t, open);
      for (const params of [
        { client_id: 'keyed-service', ...assertionParams(await sign(keys.service, 'keyed-service')) },
        assertionParams(await sign(keys.service, 'keyed-service')),
        assertionParams(await sign(keys.service, 'keyed-service', { aud: TOKEN_ENDPOINT })),
        assertionParams(await sign(keys.service, 'keyed-service', { header: { typ: 'client-authentication+jwt' } })),
      ]) {
        const res = await post('/oauth2/token', { grant_type: 'client_credentials', ...params });
        t.equal(res.statusCode, 200);
        t.match(res.headers, NO_STORE_JSON);
        t.match(res.json(), { token_type: 'bearer', scope: 'read write', expires_in: 3600 });
        const claims = JSON.parse(Buffer.from(accessTokenOf(res).split('.')[1] as string, 'base64url').toString());
        t.match(claims, { sub: 'keyed-service', client_id: 'keyed-service' });
      }
    });

    t.test('an assertion is single-use: its replay is refused', async (t) => {
      const { post, sign, keys } = await setup(t, open);
      const params = { grant_type: 'client_credentials', ...assertionParams(await sign(keys.service, 'keyed-service')) };
      t.equal((await post('/oauth2/token', params)).statusCode, 200);
      expectOAuthError(t, await post('/oauth2/token', params), FAILED);
      expectOAuthError(t, await post('/oauth2/revoke', { ...params, token: 'x' }), FAILED);
    });

    t.test('of 20 parallel requests with one assertion exactly one succeeds', async (t) => {
      const { post, sign, keys } = await setup(t, open);
      const params = { grant_type: 'client_credentials', ...assertionParams(await sign(keys.service, 'keyed-service')) };
      const results = await Promise.all(Array.from({ length: 20 }, () => post('/oauth2/token', params)));
      t.equal(results.filter((res) => res.statusCode === 200).length, 1, 'exactly one 200');
      for (const res of results.filter((r) => r.statusCode !== 200)) expectOAuthError(t, res, FAILED);
    });

    t.test('every refused assertion reads the same 401; the log says why at debug, never the assertion', async (t) => {
      const { post, sign, keys, now, lines } = await setup(t, open);
      const hmac = await new SignJWT({ iss: 'keyed-service', sub: 'keyed-service', aud: ISSUER, exp: now() + 60, jti: 'h' })
        .setProtectedHeader({ alg: 'HS256' })
        .sign(new TextEncoder().encode(JSON.stringify(keys.service.publicJwk)));
      const cases: [string, Record<string, string>, string][] = [
        [
          'expired',
          assertionParams(await sign(keys.service, 'keyed-service', { claims: { iat: now() - 120, exp: now() - 60 } })),
          'expired',
        ],
        [
          'living too long',
          assertionParams(await sign(keys.service, 'keyed-service', { claims: { exp: now() + 3600 } })),
          'exp is too far in the future',
        ],
        [
          'no jti',
          assertionParams(await sign(keys.service, 'keyed-service', { claims: { jti: undefined } })),
          'jti is missing or malformed',
        ],
        [
          'another audience',
          assertionParams(await sign(keys.service, 'keyed-service', { aud: 'https://other.example.com' })),
          'aud is neither our issuer identifier nor our token endpoint URL',
        ],
        [
          'the introspection endpoint as audience',
          assertionParams(await sign(keys.service, 'keyed-service', { aud: `${ISSUER}/oauth2/introspect` })),
          'aud is neither our issuer identifier nor our token endpoint URL',
        ],
        [
          'another client as issuer',
          assertionParams(await sign(keys.service, 'keyed-service', { claims: { iss: 'keyed-rs' } })),
          'iss is not the client_id',
        ],
        [
          "another client's sub, with our client_id",
          { client_id: 'keyed-service', ...assertionParams(await sign(keys.rs, 'keyed-rs')) },
          'iss is not the client_id',
        ],
        [
          "another client's sub, signed by our key",
          assertionParams(await sign(keys.service, 'keyed-rs')),
          'no key of the client for ES256 with kid service',
        ],
        [
          'a kid not among the client keys',
          assertionParams(await sign(keys.service, 'keyed-service', { header: { kid: 'unknown' } })),
          'no key of the client for ES256 with kid unknown',
        ],
        [
          'signed by a key not the client’s',
          assertionParams(await sign(keys.stranger, 'keyed-service')),
          'the signature does not verify with the client key',
        ],
        ['alg none', assertionParams(unsignedAssertion('keyed-service', now())), 'alg none is not accepted'],
        ['HS256 with the public key', assertionParams(hmac), 'alg HS256 is not accepted'],
        [
          'an access token type',
          assertionParams(await sign(keys.service, 'keyed-service', { header: { typ: 'at+jwt' } })),
          "typ at+jwt is not a client assertion's",
        ],
        ['not a JWT', assertionParams('not-a-jwt'), 'no client_id and no sub'],
        [
          'not a JWT, with client_id',
          { client_id: 'keyed-service', ...assertionParams('not-a-jwt') },
          'not a signed JWT (JWS compact serialization)',
        ],
        ['an unknown client', assertionParams(await sign(keys.service, 'nobody')), 'unknown client'],
        [
          'a client with a secret',
          assertionParams(await sign(keys.service, 'secret-service')),
          'the client authenticates with client_secret_basic, not private_key_jwt',
        ],
        ['a public client', assertionParams(await sign(keys.service, 'spa')), 'the client authenticates with none, not private_key_jwt'],
      ];
      for (const [name, params, reason] of cases) {
        t.test(name, async (t) => {
          const before = lines.length;
          expectOAuthError(t, await post('/oauth2/token', { grant_type: 'client_credentials', ...params }), FAILED);
          const logged = lines.slice(before).map((line) => JSON.parse(line) as Record<string, unknown>);
          const refusal = logged.find((line) => line.msg === 'client assertion refused: invalid_client');
          t.match(refusal, { level: 20, reason }, 'logged at debug with the reason');
          t.notOk(
            lines.slice(before).some((line) => line.includes(params.client_assertion as string)),
            'the assertion is not logged',
          );
        });
      }
    });

    t.test('a private_key_jwt client cannot authenticate with a secret, nor with its id alone', async (t) => {
      const { post } = await setup(t, open);
      const params = { grant_type: 'client_credentials' };
      expectOAuthError(t, await post('/oauth2/token', params, basic('keyed-service', WEB_SECRET)), FAILED);
      expectOAuthError(t, await post('/oauth2/token', { ...params, client_id: 'keyed-service', client_secret: WEB_SECRET }), FAILED);
      expectOAuthError(t, await post('/oauth2/token', { ...params, client_id: 'keyed-service' }), FAILED);
      expectOAuthError(t, await post('/oauth2/token', params, basic('keyed-service', '')), FAILED);
    });

    t.test('RFC 6749 §2.3: one method per request; RFC 7521 §4.2: the assertion with its type', async (t) => {
      const { post, sign, keys } = await setup(t, open);
      const assertion = await sign(keys.service, 'keyed-service');
      const badRequest = (description: string) => ({ status: 400, error: 'invalid_request', description });
      const params = { grant_type: 'client_credentials', ...assertionParams(assertion) };
      expectOAuthError(
        t,
        await post('/oauth2/token', params, basic('secret-service', WEB_SECRET)),
        badRequest('client authenticated with both HTTP Basic and client_assertion'),
      );
      expectOAuthError(
        t,
        await post('/oauth2/token', { ...params, client_id: 'keyed-service', client_secret: WEB_SECRET }),
        badRequest('client authenticated with both client_secret and client_assertion'),
      );
      expectOAuthError(
        t,
        await post('/oauth2/token', { grant_type: 'client_credentials', client_assertion: assertion }),
        badRequest('client_assertion sent without client_assertion_type'),
      );
      expectOAuthError(
        t,
        await post('/oauth2/token', { grant_type: 'client_credentials', client_assertion_type: CLIENT_ASSERTION_TYPE }),
        badRequest('client_assertion_type sent without client_assertion'),
      );
      expectOAuthError(
        t,
        await post('/oauth2/token', { ...params, client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:saml2-bearer' }),
        badRequest('client_assertion_type must be urn:ietf:params:oauth:client-assertion-type:jwt-bearer'),
      );
      const inQuery = await post(`/oauth2/token?client_assertion=${assertion}`, params);
      expectOAuthError(t, inQuery, badRequest('client_assertion must not be sent in the query string'));
      t.equal((await post('/oauth2/token', params)).statusCode, 200, 'none of the refused requests spent the assertion');
    });
  });

  t.test('POST /oauth2/token grant_type=authorization_code and refresh_token with private_key_jwt', async (t) => {
    const { app, post, sign, keys } = await setup(t, open);
    const { verifier, challenge } = pkcePair();
    const approved = await signInAndDecide(new InjectBrowser(app), codeRequest('keyed-web', REDIRECT, challenge), ALICE);
    const { code } = redirectParams(approved.headers.location as string);
    const redeem = {
      grant_type: 'authorization_code',
      code: code as string,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
    };
    expectOAuthError(t, await post('/oauth2/token', { ...redeem, client_id: 'keyed-web' }), FAILED);
    const tokens = await post('/oauth2/token', { ...redeem, ...assertionParams(await sign(keys.web, 'keyed-web')) });
    t.equal(tokens.statusCode, 200, 'the code redeemed by the client authenticated with its key');
    const { refresh_token } = tokens.json() as { refresh_token: string };
    const refreshed = await post('/oauth2/token', {
      grant_type: 'refresh_token',
      refresh_token,
      ...assertionParams(await sign(keys.web, 'keyed-web')),
    });
    t.equal(refreshed.statusCode, 200, 'and refreshed');
    t.match(refreshed.json(), { scope: 'read', token_type: 'bearer' });
  });

  t.test('POST /oauth2/revoke and POST /oauth2/introspect with private_key_jwt', async (t) => {
    const { post, sign, token, keys } = await setup(t, open);
    const accessToken = accessTokenOf(await token(keys.service, 'keyed-service'));
    const introspect = async () => post('/oauth2/introspect', { token: accessToken, ...assertionParams(await sign(keys.rs, 'keyed-rs')) });
    const active = await introspect();
    t.equal(active.statusCode, 200);
    t.match(active.json(), { active: true, client_id: 'keyed-service', sub: 'keyed-service', scope: 'read write' });
    expectOAuthError(t, await post('/oauth2/introspect', { token: accessToken, client_id: 'keyed-rs' }), FAILED);
    const revoked = await post('/oauth2/revoke', { token: accessToken, ...assertionParams(await sign(keys.service, 'keyed-service')) });
    t.equal(revoked.statusCode, 200);
    t.same((await introspect()).json(), { active: false });
    const replay = await post('/oauth2/introspect', {
      token: accessToken,
      ...assertionParams(await sign(keys.rs, 'keyed-rs', { claims: { jti: 'once' } })),
    });
    t.equal(replay.statusCode, 200);
    expectOAuthError(
      t,
      await post('/oauth2/introspect', {
        token: accessToken,
        ...assertionParams(await sign(keys.rs, 'keyed-rs', { claims: { jti: 'once' } })),
      }),
      FAILED,
    );
  });
}

import type { Test } from 'tap';
import { CLIENT_ASSERTION_TYPE } from '../../src/oauth/client-assertion.js';
import { ALICE, WEB_SECRET } from '../helpers/authorize-fixtures.js';
import { codeRequest, InjectBrowser, pkcePair, redirectParams, signInAndDecide } from '../helpers/browser-flow.js';
import { assertionParams } from '../helpers/client-keys.js';
import { expectOAuthError, type InjectedResponse } from '../helpers/oauth-error.js';
import { FAILED, KEYED_REDIRECT, keyedClientsServer } from '../helpers/private-key-jwt.js';
import { basic, ISSUER, NO_STORE_JSON } from '../helpers/server.js';
import type { OpenStore } from '../helpers/stores.js';

/**
 * private_key_jwt (RFC 7523 §2.2) at the token, revocation and introspection endpoints, the
 * same on every store: the assertion authenticates the client once, and every refusal reads
 * the same 401 (which check failed: test/unit/client-auth.assertion-refusals.test.ts).
 */

const TOKEN_ENDPOINT = `${ISSUER}/oauth2/token`;
const setup = keyedClientsServer;

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
        assertionParams(await sign(keys.service, 'keyed-service', { aud: [ISSUER], header: { typ: 'client-authentication+jwt' } })),
      ]) {
        const res = await post('/oauth2/token', { grant_type: 'client_credentials', ...params });
        t.equal(res.statusCode, 200);
        t.match(res.headers, NO_STORE_JSON);
        t.match(res.json(), { token_type: 'bearer', scope: 'read write', expires_in: 3600 });
        const claims = JSON.parse(Buffer.from(accessTokenOf(res).split('.')[1] as string, 'base64url').toString());
        t.match(claims, { sub: 'keyed-service', client_id: 'keyed-service' });
      }
    });

    t.test(
      'draft-ietf-oauth-rfc7523bis: an aud naming another server too is refused (all cases: client-auth.assertion-audience)',
      async (t) => {
        const { post, sign, keys } = await setup(t, open);
        const aud = [ISSUER, 'https://other-as.example.com'];
        const params = { grant_type: 'client_credentials', ...assertionParams(await sign(keys.service, 'keyed-service', { aud })) };
        expectOAuthError(t, await post('/oauth2/token', params), FAILED);
        const typed = await sign(keys.service, 'keyed-service', { aud: TOKEN_ENDPOINT, header: { typ: 'client-authentication+jwt' } });
        expectOAuthError(t, await post('/oauth2/introspect', { token: 'x', ...assertionParams(typed) }), FAILED);
      },
    );

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
    const approved = await signInAndDecide(new InjectBrowser(app), codeRequest('keyed-web', KEYED_REDIRECT, challenge), ALICE);
    const { code } = redirectParams(approved.headers.location as string);
    const redeem = {
      grant_type: 'authorization_code',
      code: code as string,
      redirect_uri: KEYED_REDIRECT,
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

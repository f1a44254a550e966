import { createLocalJWKSet, jwtVerify } from 'jose';
import t from 'tap';
import { refOf } from '../../src/tokens/opaque.js';
import { WEB_REDIRECT, WEB_SECRET } from '../helpers/authorize-fixtures.js';
import { pkcePair } from '../helpers/browser-flow.js';
import { expectOAuthError } from '../helpers/oauth-error.js';
import { basic, ISSUER, NO_STORE_JSON } from '../helpers/server.js';
import { memoryStore } from '../helpers/stores.js';
import { expectInvalidGrant, parallelRedemptionSuite, setup } from '../suites/authorization-code.js';

t.test('POST /oauth2/token grant_type=authorization_code', async (t) => {
  t.test('redeems a code with PKCE for an access token and a refresh token', async (t) => {
    const { app, clock, verifier, newCode, redeem } = await setup(t);
    const res = await redeem({ code: await newCode(), redirect_uri: WEB_REDIRECT, code_verifier: verifier });
    t.equal(res.statusCode, 200);
    t.match(res.headers, NO_STORE_JSON);
    const body = res.json();
    t.same(Object.keys(body).sort(), ['access_token', 'expires_in', 'refresh_token', 'scope', 'token_type']);
    t.match(body, { token_type: 'bearer', expires_in: 3600, scope: 'read write' });
    t.match(
      body.refresh_token,
      /^[A-Za-z0-9_-]{22}\.0\.[A-Za-z0-9_-]{43}\.[A-Za-z0-9_-]+$/,
      'grant id, generation 0, nonce, sealed family',
    );
    const jwks = createLocalJWKSet((await app.inject({ url: '/.well-known/jwks.json' })).json());
    const { payload } = await jwtVerify(body.access_token, jwks, {
      issuer: ISSUER,
      audience: ISSUER,
      typ: 'at+jwt',
      currentDate: new Date(clock.now),
    });
    t.match(payload, { sub: 'user-alice', client_id: 'web', scope: 'read write' });
    t.type(payload.auth_time, 'number');
  });

  t.test('no refresh token for a client without the refresh_token grant', async (t) => {
    const { newCode, redeem } = await setup(t);
    const code = await newCode({ response_type: 'code', client_id: 'single', scope: 'read' });
    const res = await redeem({ code }, basic('single', WEB_SECRET));
    t.equal(res.statusCode, 200);
    t.equal(res.json().refresh_token, undefined);
  });

  t.test('a public client redeems with client_id and its verifier', async (t) => {
    const { newCode, redeem } = await setup(t);
    const { verifier, challenge } = pkcePair();
    const code = await newCode({ response_type: 'code', client_id: 'spa', code_challenge: challenge, code_challenge_method: 'S256' });
    t.equal((await redeem({ code, client_id: 'spa', code_verifier: verifier }, null)).statusCode, 200);
    const other = await newCode({ response_type: 'code', client_id: 'spa', code_challenge: challenge, code_challenge_method: 'S256' });
    const anonymous = await redeem({ code: other, code_verifier: verifier }, null);
    expectOAuthError(t, anonymous, { status: 401, error: 'invalid_client', description: 'client authentication is required' });
  });

  t.test('a code is single use; a replay revokes the grant', async (t) => {
    const { store, verifier, newCode, redeem } = await setup(t);
    const code = await newCode();
    t.equal((await redeem({ code, redirect_uri: WEB_REDIRECT, code_verifier: verifier })).statusCode, 200);
    const replay = await redeem({ code, redirect_uri: WEB_REDIRECT, code_verifier: verifier });
    expectInvalidGrant(t, replay, 'the authorization code was already used; the tokens issued from it are revoked');
    t.equal(await store.isGrantRevoked(refOf(code)?.grantId as string), true, 'the refresh family of the code is revoked');
  });

  t.test('bound to its client, redirect URI and verifier; the first failed try burns the code', async (t) => {
    const { verifier, newCode, redeem } = await setup(t);
    const unknown = 'the authorization code is invalid, expired, or was issued to another client';
    expectInvalidGrant(t, await redeem({ code: 'not-a-code', redirect_uri: WEB_REDIRECT, code_verifier: verifier }), unknown);
    expectInvalidGrant(
      t,
      await redeem({ code: await newCode(), redirect_uri: WEB_REDIRECT, code_verifier: verifier }, basic('single', WEB_SECRET)),
      unknown,
    );
    expectInvalidGrant(
      t,
      await redeem({ code: await newCode(), code_verifier: verifier }),
      'redirect_uri is required: the authorization request carried one',
    );
    expectInvalidGrant(
      t,
      await redeem({ code: await newCode(), redirect_uri: `${WEB_REDIRECT}/`, code_verifier: verifier }),
      'redirect_uri does not match the authorization request',
    );
    expectInvalidGrant(
      t,
      await redeem({ code: await newCode(), redirect_uri: WEB_REDIRECT }),
      'code_verifier is required: the authorization request had a code_challenge',
    );
    expectInvalidGrant(
      t,
      await redeem({ code: await newCode(), redirect_uri: WEB_REDIRECT, code_verifier: pkcePair().verifier }),
      'code_verifier does not match the code_challenge',
    );
    const code = await newCode();
    await redeem({ code, redirect_uri: WEB_REDIRECT, code_verifier: 'wrong'.repeat(10) });
    expectInvalidGrant(
      t,
      await redeem({ code, redirect_uri: WEB_REDIRECT, code_verifier: verifier }),
      'the authorization code was already used; the tokens issued from it are revoked',
    );
  });

  t.test('a verifier for a code issued without a challenge is a downgrade, refused', async (t) => {
    const { newCode, redeem, request } = await setup(t);
    const { code_challenge: _c, code_challenge_method: _m, ...withoutPkce } = request;
    const code = await newCode(withoutPkce);
    expectInvalidGrant(
      t,
      await redeem({ code, redirect_uri: WEB_REDIRECT, code_verifier: pkcePair().verifier }),
      'code_verifier sent, but the authorization request had no code_challenge',
    );
  });

  t.test('an expired code is invalid_grant', async (t) => {
    const { advance, verifier, newCode, redeem } = await setup(t, memoryStore, { AUTHORIZATION_CODE_TTL: '30' });
    const code = await newCode();
    await advance(31);
    expectInvalidGrant(
      t,
      await redeem({ code, redirect_uri: WEB_REDIRECT, code_verifier: verifier }),
      'the authorization code is invalid, expired, or was issued to another client',
    );
  });

  t.test('scope may narrow the grant, never widen it', async (t) => {
    const { verifier, newCode, redeem, request } = await setup(t);
    const narrowed = await redeem({ code: await newCode(), redirect_uri: WEB_REDIRECT, code_verifier: verifier, scope: 'read' });
    t.equal(narrowed.json().scope, 'read');
    const readOnly = await newCode({ ...request, scope: 'read' });
    const widened = await redeem({ code: readOnly, redirect_uri: WEB_REDIRECT, code_verifier: verifier, scope: 'read write' });
    expectOAuthError(t, widened, { status: 400, error: 'invalid_scope' });
  });
});

parallelRedemptionSuite(t, 'memory store', memoryStore);

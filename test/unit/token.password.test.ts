import t from 'tap';
import { ALICE, WEB_SECRET } from '../helpers/authorize-fixtures.js';
import { expectOAuthError } from '../helpers/oauth-error.js';
import { NO_STORE_JSON } from '../helpers/server.js';
import { password, setup } from '../suites/password-grant.js';

t.test('POST /oauth2/token grant_type=password', async (t) => {
  t.test('issues an access token for the user and a refresh token when registered', async (t) => {
    const { client } = await setup(t);
    const res = await client('first-party').token(password(ALICE.username, ALICE.password, { scope: 'read' }));
    t.equal(res.statusCode, 200);
    t.match(res.headers, NO_STORE_JSON);
    const body = res.json();
    t.same(Object.keys(body).sort(), ['access_token', 'expires_in', 'refresh_token', 'scope', 'token_type']);
    const claims = JSON.parse(Buffer.from(body.access_token.split('.')[1], 'base64url').toString());
    t.match(claims, { sub: 'user-alice', client_id: 'first-party', scope: 'read' });
    const noRefresh = await client('no-refresh').token(password(ALICE.username, ALICE.password));
    t.equal(noRefresh.json().refresh_token, undefined);
    t.equal((await client('cli', null).token(password(ALICE.username, ALICE.password))).statusCode, 200, 'a public client with client_id');
  });

  t.test('unknown user and wrong password: the same invalid_grant', async (t) => {
    const { client } = await setup(t);
    for (const [username, pass] of [
      ['alice', 'wrong'],
      ['nobody', 'wrong'],
    ] as const) {
      expectOAuthError(t, await client('first-party').token(password(username, pass)), {
        status: 400,
        error: 'invalid_grant',
        description: 'invalid username or password',
      });
    }
  });

  t.test('only for clients that register it; parameters required', async (t) => {
    const { client } = await setup(t);
    const res = await client('web').token(password(ALICE.username, ALICE.password));
    expectOAuthError(t, res, {
      status: 400,
      error: 'unauthorized_client',
      description: 'this client is not registered for grant_type password',
    });
    const missing = await client('first-party').token({ grant_type: 'password', username: 'alice' });
    expectOAuthError(t, missing, { status: 400, error: 'invalid_request', description: "parameter 'password' is required" });
    const anonymous = await client('first-party', null).token(password(ALICE.username, ALICE.password));
    expectOAuthError(t, anonymous, {
      status: 401,
      error: 'invalid_client',
      description: 'client authentication failed',
    });
  });

  t.test('failures per username are limited: 429 with Retry-After and an OAuth error body', async (t) => {
    const { client } = await setup(t, { LOGIN_MAX_FAILURES: '3', LOGIN_FAILURE_WINDOW: '300' });
    for (let i = 0; i < 3; i += 1) await client('first-party', WEB_SECRET, `198.51.100.${i}`).token(password('alice', `wrong-${i}`));
    const res = await client('no-refresh', WEB_SECRET, '198.51.100.200').token(password(ALICE.username, ALICE.password));
    // Even the right password, from another client and address.
    expectOAuthError(t, res, {
      status: 429,
      error: 'invalid_grant',
      description: 'too many failed attempts: retry after 300 seconds',
      headers: { 'retry-after': '300' },
    });
    t.equal((await client('first-party').token(password('bob', 'bob-password-1'))).statusCode, 200, 'other users are unaffected');
  });

  t.test('failures per address are limited', async (t) => {
    const { client } = await setup(t, { LOGIN_MAX_FAILURES_PER_IP: '2' });
    const attacker = client('first-party', WEB_SECRET, '192.0.2.66');
    for (const username of ['u1', 'u2']) await attacker.token(password(username, 'x'));
    t.equal((await attacker.token(password(ALICE.username, ALICE.password))).statusCode, 429);
    t.equal(
      (await client('first-party', WEB_SECRET, '192.0.2.67').token(password(ALICE.username, ALICE.password))).statusCode,
      200,
      'another address is unaffected',
    );
  });
});

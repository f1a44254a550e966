import type { Test } from 'tap';
import t from 'tap';
import { WEB_REDIRECT, WEB_SECRET } from '../helpers/authorize-fixtures.js';
import { pkcePair } from '../helpers/browser-flow.js';
import { expectOAuthError, type InjectedResponse } from '../helpers/oauth-error.js';
import { basic, buildTestServer, FORM_HEADERS, form, ISSUER, SECRETS } from '../helpers/server.js';
import { setup } from '../suites/authorization-code.js';

/**
 * Client authentication as client libraries send it by default (RFC 6749 §2.3.1, OAuth 2.1
 * §2.4.1): a client with a secret may use HTTP Basic or the body, whichever it registered;
 * a public client sends its id. The other refusals (both at once, secret in the query, a
 * malformed Basic header) are in token.request.test.ts.
 */

const FAILED = {
  status: 401,
  error: 'invalid_client',
  description: 'client authentication failed',
  headers: { 'www-authenticate': `Basic realm="${ISSUER}", charset="UTF-8"` },
};

t.test('POST /oauth2/token client authentication the way libraries send it', async (t) => {
  const { app } = await buildTestServer(t);
  const post = (params: Record<string, string>, authorization?: string) =>
    app.inject({
      method: 'POST',
      url: '/oauth2/token',
      headers: { ...FORM_HEADERS, ...(authorization === undefined ? {} : { authorization }) },
      payload: form({ grant_type: 'client_credentials', ...params }),
    });
  const expectToken = (t: Test, res: InjectedResponse, scope: string) => {
    t.equal(res.statusCode, 200);
    t.equal((res.json() as { scope: string }).scope, scope);
  };

  t.test('HTTP Basic (authlib, oauth4webapi, Go x/oauth2 header style), whichever method the client registered', async (t) => {
    expectToken(t, await post({}, basic('service', SECRETS.service)), 'read write admin');
    expectToken(t, await post({}, basic('poster', SECRETS.poster)), 'read');
  });

  t.test('client_id and client_secret in the body (openid-client), whichever method the client registered', async (t) => {
    expectToken(t, await post({ client_id: 'service', client_secret: SECRETS.service }), 'read write admin');
    expectToken(t, await post({ client_id: 'poster', client_secret: SECRETS.poster }), 'read');
  });

  t.test('two clients at one token URL in the style the first one used (Go x/oauth2 caches it per URL)', async (t) => {
    // Header style learned with "service", then used for "poster" (registered client_secret_post).
    expectToken(t, await post({}, basic('service', SECRETS.service)), 'read write admin');
    expectToken(t, await post({}, basic('poster', SECRETS.poster)), 'read');
    // Body style learned with "poster", then used for "service" (registered client_secret_basic).
    expectToken(t, await post({ client_id: 'poster', client_secret: SECRETS.poster }), 'read');
    expectToken(t, await post({ client_id: 'service', client_secret: SECRETS.service }), 'read write admin');
  });

  t.test('every failed authentication reads the same, whether the id exists or not', async (t) => {
    const failures: [string, Record<string, string>, string?][] = [
      ['unknown id, Basic', {}, basic('nobody', SECRETS.service)],
      ['unknown id, body', { client_id: 'nobody', client_secret: SECRETS.service }],
      ['unknown id, no secret', { client_id: 'nobody' }],
      ['wrong secret, Basic', {}, basic('service', 'wrong')],
      ['wrong secret, body', { client_id: 'poster', client_secret: SECRETS.service }],
      ['confidential client, no secret, body', { client_id: 'service' }],
      ['confidential client, Basic with an empty password', {}, basic('poster', '')],
      ['public client presenting a secret, body', { client_id: 'spa', client_secret: 'anything' }],
      ['public client presenting a secret, Basic', {}, basic('spa', 'anything')],
    ];
    for (const [name, params, authorization] of failures) {
      t.test(name, async (t) => expectOAuthError(t, await post(params, authorization), FAILED));
    }
  });
});

t.test('the code flow and refresh with library defaults', async (t) => {
  t.test(
    'a confidential client redeems its code with body credentials, then refreshes with body credentials (requests-oauthlib)',
    async (t) => {
      const { app, verifier, newCode, redeem } = await setup(t);
      const code = await newCode();
      const tokens = await redeem(
        { code, redirect_uri: WEB_REDIRECT, code_verifier: verifier, client_id: 'web', client_secret: WEB_SECRET },
        null,
      );
      t.equal(tokens.statusCode, 200, 'registered client_secret_basic, authenticated in the body');
      const refreshed = await app.inject({
        method: 'POST',
        url: '/oauth2/token',
        headers: FORM_HEADERS,
        payload: form({
          grant_type: 'refresh_token',
          refresh_token: tokens.json().refresh_token,
          client_id: 'web',
          client_secret: WEB_SECRET,
        }),
      });
      t.equal(refreshed.statusCode, 200);
      t.match(refreshed.json(), { token_type: 'bearer', scope: 'read write', refresh_token: /\./ });
    },
  );

  t.test('a public client named in HTTP Basic with an empty password (requests-oauthlib default) redeems its code', async (t) => {
    const { newCode, redeem } = await setup(t);
    const { verifier, challenge } = pkcePair();
    const code = await newCode({ response_type: 'code', client_id: 'spa', code_challenge: challenge, code_challenge_method: 'S256' });
    const res = await redeem({ code, code_verifier: verifier }, basic('spa', ''));
    t.equal(res.statusCode, 200);
    t.match(res.json(), { token_type: 'bearer', scope: 'read profile' });
  });

  t.test('a confidential client presenting no secret is refused and its code stays unused', async (t) => {
    const { verifier, newCode, redeem } = await setup(t);
    const code = await newCode();
    expectOAuthError(t, await redeem({ code, redirect_uri: WEB_REDIRECT, code_verifier: verifier, client_id: 'web' }, null), FAILED);
    const res = await redeem({ code, redirect_uri: WEB_REDIRECT, code_verifier: verifier });
    t.equal(res.statusCode, 200, 'the refused request did not consume the code');
  });
});

import { randomInt } from 'node:crypto';
import t from 'tap';
import { ALICE, testUsers } from '../helpers/authorize-fixtures.js';
import { authorizeUrl, InjectBrowser, pkcePair, redirectParams, signInAndDecide } from '../helpers/browser-flow.js';
import { expectOAuthError } from '../helpers/oauth-error.js';
import { buildTestServer, FORM_HEADERS, form } from '../helpers/server.js';

/** A native app (RFC 8252) registers its loopback redirect URIs without a port and listens on whatever port is free. */
const NATIVE = {
  client_id: 'desktop',
  redirect_uris: ['http://127.0.0.1/callback', 'http://[::1]/callback', 'http://localhost/callback'],
  grant_types: ['authorization_code'],
  scope: 'read',
  token_endpoint_auth_method: 'none',
};

t.test('the code flow of a native app on an ephemeral loopback port (RFC 8252 §7.3)', async (t) => {
  const { app } = await buildTestServer(t, { clients: [NATIVE], users: testUsers(), env: { CONSENT_TTL: '0' } }); // every flow shows the consent page
  const { verifier, challenge } = pkcePair();
  const authorize = (redirectUri: string) => ({
    response_type: 'code',
    client_id: 'desktop',
    redirect_uri: redirectUri,
    state: 'st',
    code_challenge: challenge,
    code_challenge_method: 'S256',
  });
  const redeem = (code: string, redirectUri: string | undefined) =>
    app.inject({
      method: 'POST',
      url: '/oauth2/token',
      headers: FORM_HEADERS,
      payload: form({
        grant_type: 'authorization_code',
        client_id: 'desktop',
        code,
        code_verifier: verifier,
        ...(redirectUri === undefined ? {} : { redirect_uri: redirectUri }),
      }),
    });
  const codeAt = async (redirectUri: string) => {
    const res = await signInAndDecide(new InjectBrowser(app), authorize(redirectUri), ALICE);
    t.equal(res.statusCode, 303);
    t.ok((res.headers.location as string).startsWith(`${redirectUri}?`), `the code goes to ${redirectUri}`);
    return redirectParams(res.headers.location as string).code as string;
  };

  for (const host of ['127.0.0.1', '[::1]']) {
    t.test(`http://${host}:<random port>/callback`, async (t) => {
      const redirectUri = `http://${host}:${randomInt(1024, 65536)}/callback`;
      const res = await redeem(await codeAt(redirectUri), redirectUri);
      t.equal(res.statusCode, 200);
      t.match(res.json(), { token_type: 'bearer', scope: 'read' });
    });
  }

  t.test('the token request must repeat the redirect_uri with its port', async (t) => {
    const port = randomInt(1024, 65535);
    const otherPort = await redeem(await codeAt(`http://127.0.0.1:${port}/callback`), `http://127.0.0.1:${port + 1}/callback`);
    expectOAuthError(t, otherPort, {
      status: 400,
      error: 'invalid_grant',
      description: 'redirect_uri does not match the authorization request',
    });
    const noPort = await redeem(await codeAt(`http://127.0.0.1:${port}/callback`), 'http://127.0.0.1/callback');
    expectOAuthError(t, noPort, {
      status: 400,
      error: 'invalid_grant',
      description: 'redirect_uri does not match the authorization request',
    });
    const omitted = await redeem(await codeAt(`http://127.0.0.1:${port}/callback`), undefined);
    expectOAuthError(t, omitted, {
      status: 400,
      error: 'invalid_grant',
      description: 'redirect_uri is required: the authorization request carried one',
    });
  });

  t.test('localhost and a different path get the error page, never a redirect', async (t) => {
    for (const redirectUri of ['http://localhost:50123/callback', 'http://127.0.0.1:50123/callback/other']) {
      const res = await app.inject({ url: authorizeUrl(authorize(redirectUri)) });
      t.equal(res.statusCode, 400, redirectUri);
      t.equal(res.headers.location, undefined);
      t.match(res.body, 'the redirect_uri is not registered for this client');
    }
  });
});

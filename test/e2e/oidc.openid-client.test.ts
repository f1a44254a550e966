import { once } from 'node:events';
import { createServer } from 'node:http';
import * as client from 'openid-client';
import t from 'tap';
import { hashClientSecret } from '../../src/clients/secret.js';
import { launchChromium } from '../helpers/chromium.js';
import { PROCESS_ALICE, PROCESS_ALICE_CLAIMS, startServerWithClients } from '../helpers/registry-files.js';

/**
 * openid-client (panva), the most used OpenID Connect client for Node, with its default
 * settings (only `allowInsecureRequests`, as the server here is plain http on loopback),
 * against the built server: discovery, the code flow with PKCE, state and nonce through the
 * login and consent pages in Chromium, the ID token it validates, userinfo, a refresh with a
 * new ID token, and RP-initiated logout.
 */

const SECRET = 'openid-client-test-secret-0123456789abcdefghij';

t.test('openid-client signs a user in, reads userinfo, refreshes and signs out', async (t) => {
  const arrivals: URL[] = [];
  const rp = createServer((req, res) => {
    arrivals.push(new URL(req.url ?? '/', 'http://127.0.0.1'));
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Relying party</title><p>Back at the application</p>');
  });
  rp.listen(0, '127.0.0.1');
  await once(rp, 'listening');
  t.teardown(() => rp.close());
  const origin = `http://127.0.0.1:${(rp.address() as { port: number }).port}`;
  const redirectUri = `${origin}/callback`;
  const signedOut = `${origin}/signed-out`;

  const { issuer } = await startServerWithClients(t, [
    {
      client_id: 'rp',
      client_name: 'Relying Party',
      client_secret_hash: hashClientSecret(SECRET),
      redirect_uris: [redirectUri],
      grant_types: ['authorization_code', 'refresh_token'],
      scope: 'read',
      post_logout_redirect_uris: [signedOut],
    },
  ]);

  // Discovery with defaults: /.well-known/openid-configuration, issuer checked.
  const config = await client.discovery(new URL(issuer), 'rp', SECRET, undefined, { execute: [client.allowInsecureRequests] });
  t.equal(config.serverMetadata().issuer, issuer);
  t.equal(config.serverMetadata().userinfo_endpoint, `${issuer}/oauth2/userinfo`);

  const codeVerifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const nonce = client.randomNonce();
  const authorizationUrl = client.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri,
    scope: 'openid profile email read',
    code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
    state,
    nonce,
  });

  const browser = await launchChromium(t);
  const page = await (await browser.newContext()).newPage();
  await page.goto(authorizationUrl.href);
  await page.getByLabel('Username').fill(PROCESS_ALICE.username);
  await page.getByLabel('Password', { exact: true }).fill(PROCESS_ALICE.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForSelector('text=Allow access?');
  t.match(await page.textContent('main'), 'Your email address, and whether it is verified', 'the consent page says what email shares');
  await page.getByRole('button', { name: 'Allow' }).click();
  await page.waitForURL(`${redirectUri}?**`);

  // The code grant: openid-client validates the ID token (signature, iss, aud, exp, iat, nonce, at_hash, alg).
  const tokens = await client.authorizationCodeGrant(config, new URL(page.url()), {
    pkceCodeVerifier: codeVerifier,
    expectedState: state,
    expectedNonce: nonce,
    idTokenExpected: true,
  });
  const claims = tokens.claims();
  t.equal(claims?.sub, PROCESS_ALICE.sub);
  t.equal(claims?.aud, 'rp');
  t.equal(claims?.nonce, nonce);
  t.same(claims?.amr, ['pwd']);

  const userinfo = await client.fetchUserInfo(config, tokens.access_token, PROCESS_ALICE.sub);
  t.same(userinfo, { ...PROCESS_ALICE_CLAIMS, sub: PROCESS_ALICE.sub });

  const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token as string);
  t.equal(refreshed.claims()?.sub, PROCESS_ALICE.sub, 'a new ID token for the same user');
  t.equal(refreshed.claims()?.auth_time, claims?.auth_time);
  t.not(refreshed.id_token, tokens.id_token);

  const endSession = client.buildEndSessionUrl(config, {
    id_token_hint: refreshed.id_token as string,
    post_logout_redirect_uri: signedOut,
    state: 'bye',
  });
  await page.goto(endSession.href);
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.waitForURL(`${signedOut}?**`);
  t.equal(new URL(page.url()).searchParams.get('state'), 'bye');
  t.ok(arrivals.some((url) => url.pathname === '/signed-out'));
});

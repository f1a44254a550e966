import { once } from 'node:events';
import { createServer } from 'node:http';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import t from 'tap';
import { hashClientSecret } from '../../src/clients/secret.js';
import { pkcePair } from '../helpers/browser-flow.js';
import { launchChromium } from '../helpers/chromium.js';
import { startServerWithClients } from '../helpers/registry-files.js';

const SECRET = 'browser-test-secret-0123456789abcdefghijklmnop';

t.test('a person signs in and approves in a real browser; the client redeems the code', async (t) => {
  // The client's redirect URI: a page served by the test that records what arrives.
  const arrivals: URL[] = [];
  const callback = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname === '/callback' || url.pathname === '/signed-out') arrivals.push(url);
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Client</title><p>Back at the client</p>');
  });
  callback.listen(0, '127.0.0.1');
  await once(callback, 'listening');
  t.teardown(() => callback.close());
  const clientOrigin = `http://127.0.0.1:${(callback.address() as { port: number }).port}`;
  const redirectUri = `${clientOrigin}/callback`;

  const { issuer } = await startServerWithClients(t, [
    {
      client_id: 'web',
      client_name: 'Browser Test App',
      client_secret_hash: hashClientSecret(SECRET),
      redirect_uris: [redirectUri],
      grant_types: ['authorization_code', 'refresh_token'],
      scope: 'read write',
      post_logout_redirect_uris: [`${clientOrigin}/signed-out`],
    },
  ]);

  const browser = await launchChromium(t);

  const authorizeUrl = (state: string, challenge: string, extra: Record<string, string> = {}) =>
    `${issuer}/oauth2/authorize?${new URLSearchParams({ response_type: 'code', client_id: 'web', redirect_uri: redirectUri, scope: 'read', state, code_challenge: challenge, code_challenge_method: 'S256', ...extra })}`;

  t.test('Allow: the code arrives at the client and redeems for a verifiable token', async (t) => {
    const { verifier, challenge } = pkcePair();
    const page = await (await browser.newContext()).newPage();
    await page.goto(authorizeUrl('allow-1', challenge));
    t.equal(await page.title(), 'Sign in');
    t.match(await page.textContent('main'), 'to continue to Browser Test App');
    await page.getByLabel('Username').fill('alice');
    await page.getByLabel('Password', { exact: true }).fill('wrong-password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    t.equal(await page.textContent('[role=alert]'), 'Incorrect username or password.');
    await page.getByLabel('Password', { exact: true }).fill('alice-password-1');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForSelector('text=Allow access?');
    t.match(await page.textContent('main'), 'Browser Test App asks for access');
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL(`${redirectUri}?**`);
    t.match(await page.textContent('p'), 'Back at the client');

    const arrived = arrivals.at(-1) as URL;
    t.equal(arrived.searchParams.get('state'), 'allow-1');
    t.equal(arrived.searchParams.get('iss'), issuer);
    const res = await fetch(`${issuer}/oauth2/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`web:${SECRET}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: arrived.searchParams.get('code') as string,
        redirect_uri: redirectUri,
        code_verifier: verifier,
      }),
    });
    t.equal(res.status, 200);
    const tokens = (await res.json()) as { access_token: string; refresh_token?: string };
    t.ok(tokens.refresh_token, 'a refresh token for a client with the refresh_token grant');
    const { payload } = await jwtVerify(tokens.access_token, createRemoteJWKSet(new URL(`${issuer}/.well-known/jwks.json`)), {
      issuer,
      audience: issuer,
      typ: 'at+jwt',
    });
    t.match(payload, { sub: 'user-alice', client_id: 'web', scope: 'read' });
  });

  t.test('Deny: the client gets access_denied', async (t) => {
    const page = await (await browser.newContext()).newPage();
    // More than the scope approved above: consent is asked again.
    await page.goto(authorizeUrl('deny-1', pkcePair().challenge, { scope: 'read write' }));
    await page.getByLabel('Username').fill('alice');
    await page.getByLabel('Password', { exact: true }).fill('alice-password-1');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Deny' }).click();
    await page.waitForURL(`${redirectUri}?**`);
    const arrived = arrivals.at(-1) as URL;
    t.same(Object.fromEntries(arrived.searchParams), {
      error: 'access_denied',
      error_description: 'the user denied the request',
      state: 'deny-1',
      iss: issuer,
    });
  });

  t.test('remembered consent, prompt=none, prompt=login with "Not you?", and sign-out', async (t) => {
    const page = await (await browser.newContext()).newPage();
    const arrivedWith = async (state: string) => {
      await page.waitForURL(`${clientOrigin}/**`);
      const arrived = arrivals.at(-1) as URL;
      t.equal(arrived.searchParams.get('state'), state);
      return arrived;
    };
    // Before any sign-in in this browser: prompt=none answers login_required, no page.
    await page.goto(authorizeUrl('none-1', pkcePair().challenge, { prompt: 'none' }));
    t.equal((await arrivedWith('none-1')).searchParams.get('error'), 'login_required');

    // alice approved "read" for this client above: after signing in, no consent page.
    await page.goto(authorizeUrl('remembered', pkcePair().challenge));
    await page.getByLabel('Username').fill('alice');
    await page.getByLabel('Password', { exact: true }).fill('alice-password-1');
    await page.getByRole('button', { name: 'Sign in' }).click();
    t.ok((await arrivedWith('remembered')).searchParams.get('code'), 'the code, without the consent page');

    await page.goto(authorizeUrl('none-2', pkcePair().challenge, { prompt: 'none' }));
    t.ok((await arrivedWith('none-2')).searchParams.get('code'), 'prompt=none with a session and remembered consent');

    // prompt=login: the login page again, saying who is signed in.
    await page.goto(authorizeUrl('login-1', pkcePair().challenge, { prompt: 'login' }));
    t.equal(await page.title(), 'Sign in');
    t.match(await page.textContent('main'), 'Signed in as user-alice.');
    await page.getByRole('button', { name: 'Not you?' }).click();
    await page.getByText('Signed in as').waitFor({ state: 'detached' });
    t.equal(await page.title(), 'Sign in', '"Not you?" signed out and came back to the same request');
    await page.getByLabel('Username').fill('alice');
    await page.getByLabel('Password', { exact: true }).fill('alice-password-1');
    await page.getByRole('button', { name: 'Sign in' }).click();
    t.ok((await arrivedWith('login-1')).searchParams.get('code'), 'signed in again: the code');

    // Sign-out: a confirmation page, then the client's registered post-logout page with its state.
    await page.goto(
      `${issuer}/oauth2/logout?${new URLSearchParams({ client_id: 'web', post_logout_redirect_uri: `${clientOrigin}/signed-out`, state: 'bye' })}`,
    );
    t.equal(await page.title(), 'Sign out?');
    await page.getByRole('button', { name: 'Sign out' }).click();
    const signedOut = await arrivedWith('bye');
    t.equal(signedOut.pathname, '/signed-out');
    await page.goto(authorizeUrl('none-3', pkcePair().challenge, { prompt: 'none' }));
    t.equal((await arrivedWith('none-3')).searchParams.get('error'), 'login_required', 'the session is over');
  });
});

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
    if (url.pathname === '/callback') arrivals.push(url);
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Client</title><p>Back at the client</p>');
  });
  callback.listen(0, '127.0.0.1');
  await once(callback, 'listening');
  t.teardown(() => callback.close());
  const redirectUri = `http://127.0.0.1:${(callback.address() as { port: number }).port}/callback`;

  const { issuer } = await startServerWithClients(t, [
    {
      client_id: 'web',
      client_name: 'Browser Test App',
      client_secret_hash: hashClientSecret(SECRET),
      redirect_uris: [redirectUri],
      grant_types: ['authorization_code', 'refresh_token'],
      scope: 'read write',
    },
  ]);

  const browser = await launchChromium(t);

  const authorizeUrl = (state: string, challenge: string) =>
    `${issuer}/oauth2/authorize?${new URLSearchParams({ response_type: 'code', client_id: 'web', redirect_uri: redirectUri, scope: 'read', state, code_challenge: challenge, code_challenge_method: 'S256' })}`;

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
    await page.goto(authorizeUrl('deny-1', pkcePair().challenge));
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
});

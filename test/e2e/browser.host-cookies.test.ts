import { once } from 'node:events';
import { createServer, request } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import t from 'tap';
import { hashClientSecret } from '../../src/clients/secret.js';
import { ALICE } from '../helpers/authorize-fixtures.js';
import { consoleUsers } from '../helpers/console.js';
import { pkcePair } from '../helpers/browser-flow.js';
import { launchChromium } from '../helpers/chromium.js';
import { buildTestServer } from '../helpers/server.js';
import { selfSignedCertificate } from '../helpers/tls.js';

/**
 * The `__Host-` cookies of an https issuer in a real browser: Chromium keeps them only when
 * they are Secure, Path=/ and without Domain, so a sign-in and consent that go through prove
 * it set both and sent them back (and the console's, whose sign-in goes through the same
 * session). The server answers behind a TLS terminator, as in
 * production; the test's certificate is self-signed, so the browser context ignores its errors.
 */

t.test('Chromium keeps the __Host- session and CSRF cookies of an https issuer, and the sign-in completes', async (t) => {
  const arrivals: URL[] = [];
  const client = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname === '/callback') arrivals.push(url);
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Client</title><p>Back at the client</p>');
  });
  client.listen(0, '127.0.0.1');
  await once(client, 'listening');
  t.teardown(() => client.close());
  const redirectUri = `http://127.0.0.1:${(client.address() as { port: number }).port}/callback`;

  const { key, cert } = await selfSignedCertificate(t);
  const terminator = createTlsServer({ key, cert });
  terminator.listen(0, '127.0.0.1');
  await once(terminator, 'listening');
  t.teardown(() => terminator.close());
  const issuer = `https://localhost:${(terminator.address() as { port: number }).port}`;

  const { app } = await buildTestServer(t, {
    env: { ISSUER: issuer },
    users: consoleUsers(),
    clients: [
      {
        client_id: 'web',
        client_name: 'Host Cookie App',
        client_secret_hash: hashClientSecret('host-cookie-secret-0123456789abcdefghijklmnop'),
        redirect_uris: [redirectUri],
        grant_types: ['authorization_code'],
        scope: 'read',
      },
    ],
  });
  const upstream = new URL(await app.listen({ port: 0, host: '127.0.0.1' }));
  terminator.on('request', (req, res) => {
    const forwarded = request(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    req.pipe(forwarded);
  });

  const browser = await launchChromium(t);
  const context = await browser.newContext({ ignoreHTTPSErrors: true });
  const page = await context.newPage();
  const { challenge } = pkcePair();
  const query = { response_type: 'code', client_id: 'web', redirect_uri: redirectUri, scope: 'read', state: 'host-1' };
  await page.goto(
    `${issuer}/oauth2/authorize?${new URLSearchParams({ ...query, code_challenge: challenge, code_challenge_method: 'S256' })}`,
  );
  t.equal(await page.title(), 'Sign in');
  await page.getByLabel('Username').fill(ALICE.username);
  await page.getByLabel('Password', { exact: true }).fill(ALICE.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForSelector('text=Allow access?');
  t.match(await page.textContent('main'), 'Signed in as', 'the session cookie came back');
  const cookies = (await context.cookies(issuer)).map(({ name, path, secure, httpOnly, sameSite, domain }) => ({
    name,
    path,
    secure,
    httpOnly,
    sameSite,
    domain,
  }));
  t.same(
    cookies.sort((a, b) => a.name.localeCompare(b.name)),
    [
      { name: '__Host-oauth_csrf', path: '/', secure: true, httpOnly: true, sameSite: 'Lax', domain: 'localhost' },
      { name: '__Host-oauth_session', path: '/', secure: true, httpOnly: true, sameSite: 'Lax', domain: 'localhost' },
    ],
    'Chromium kept both, host-only',
  );
  await page.getByRole('button', { name: 'Allow' }).click();
  await page.waitForURL(`${redirectUri}?**`);
  const arrived = arrivals.at(-1) as URL;
  t.equal(arrived.searchParams.get('state'), 'host-1');
  t.ok(arrived.searchParams.get('code'), 'the code arrived: the CSRF cookie was sent with the consent form');
  t.equal(arrived.searchParams.get('iss'), issuer);

  // The console signs in through the same session (its sign-in cookie came back with the redirect), and keeps its own.
  await page.goto(`${issuer}/admin`);
  t.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Your account is not an administrator of this server');
  const consoleCookie = (await context.cookies(issuer)).find((cookie) => cookie.name === '__Host-oauth_console');
  t.match(
    consoleCookie,
    { path: '/', secure: true, httpOnly: true, sameSite: 'Lax', domain: 'localhost' },
    "the console's cookie, host-only",
  );
});

import { once } from 'node:events';
import { createServer } from 'node:http';
import { createLocalJWKSet, type JSONWebKeySet, jwtVerify } from 'jose';
import type { Page } from 'playwright-core';
import type { Test } from 'tap';
import t from 'tap';
import { launchChromium } from '../helpers/chromium.js';
import { freePort } from '../../harness/ports.js';
import { PROCESS_ALICE, startServerWithClients } from '../helpers/registry-files.js';

/** Serves fixed HTML pages on a port of 127.0.0.1 (one origin per port); returns the origin. */
async function servePages(t: Test, pages: (origin: string) => Record<string, string>): Promise<string> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => server.close());
  const origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  const html = pages(origin);
  server.on('request', (req, res) => {
    const page = html[new URL(req.url ?? '/', origin).pathname];
    res.writeHead(page ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' }).end(page ?? 'not found');
  });
  return origin;
}

/** A page whose module script runs `body` (with `ISSUER` and `ORIGIN` defined) and leaves its result in `window.result`. */
function scriptPage(issuer: string, origin: string, body: string): string {
  return `<!doctype html><meta charset="utf-8"><title>SPA</title><script type="module">
const ISSUER = ${JSON.stringify(issuer)};
const ORIGIN = ${JSON.stringify(origin)};
const form = (fields) => new URLSearchParams(fields);
${body}
</script>`;
}

/** Builds the PKCE pair with WebCrypto, keeps the verifier, and goes to the authorization endpoint. */
const START = `
const b64url = (bytes) => btoa(String.fromCharCode(...new Uint8Array(bytes))).replaceAll('+', '-').replaceAll('/', '_').replaceAll('=', '');
const verifier = b64url(crypto.getRandomValues(new Uint8Array(32)));
const challenge = b64url(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier)));
sessionStorage.setItem('verifier', verifier);
location.assign(ISSUER + '/oauth2/authorize?' + form({
  response_type: 'code', client_id: 'spa', redirect_uri: ORIGIN + '/callback', scope: 'read', state: 'spa-state',
  code_challenge: challenge, code_challenge_method: 'S256',
}));`;

/**
 * At the redirect URI: redeems the code, refreshes, revokes (with an Authorization header,
 * so the browser sends a preflight first), and reads the JWKS and the metadata, all with fetch.
 */
const CALLBACK = `
const out = {};
try {
  const received = new URLSearchParams(location.search);
  out.state = received.get('state');
  const token = await fetch(ISSUER + '/oauth2/token', { method: 'POST', body: form({
    grant_type: 'authorization_code', code: received.get('code'), redirect_uri: ORIGIN + '/callback',
    client_id: 'spa', code_verifier: sessionStorage.getItem('verifier'),
  }) });
  out.token = { status: token.status, body: await token.json() };
  const refreshed = await fetch(ISSUER + '/oauth2/token', { method: 'POST', body: form({
    grant_type: 'refresh_token', refresh_token: out.token.body.refresh_token, client_id: 'spa',
  }) });
  out.refresh = { status: refreshed.status, body: await refreshed.json() };
  const revoked = await fetch(ISSUER + '/oauth2/revoke', {
    method: 'POST', headers: { authorization: 'Basic ' + btoa('spa:') }, body: form({ token: out.refresh.body.refresh_token }),
  });
  out.revoke = { status: revoked.status };
  out.jwks = await (await fetch(ISSUER + '/.well-known/jwks.json')).json();
  out.metadata = await (await fetch(ISSUER + '/.well-known/oauth-authorization-server')).json();
} catch (err) {
  out.error = err.name + ': ' + err.message;
}
window.result = out;`;

/** A page on an origin no client allows tries the same calls. */
const ELSEWHERE = `
const attempt = (promise) => promise.then((res) => 'read status ' + res.status, (err) => err.name);
window.result = {
  token: await attempt(fetch(ISSUER + '/oauth2/token', { method: 'POST', body: form({
    grant_type: 'authorization_code', code: 'abc.def', client_id: 'spa', code_verifier: 'x'.repeat(43),
  }) })),
  revoke: await attempt(fetch(ISSUER + '/oauth2/revoke', {
    method: 'POST', headers: { authorization: 'Basic ' + btoa('spa:') }, body: form({ token: 'abc.def' }),
  })),
  jwks: await attempt(fetch(ISSUER + '/.well-known/jwks.json')),
};`;

async function resultOf(page: Page): Promise<Record<string, unknown>> {
  await page.waitForFunction(() => 'result' in globalThis, undefined, { timeout: 15_000 });
  return page.evaluate(() => (globalThis as unknown as { result: Record<string, unknown> }).result);
}

/** What reached the page's network stack for `url`, CORS-blocked answers included (through the DevTools protocol). */
/**
 * The responses to `url` as the network saw them (CDP), headers included, also for
 * requests whose response the page may not read (CORS). CDP may deliver a response's
 * extra info before or after the request event, and after the page has seen the failure:
 * the two are joined whenever both have arrived, and `atLeast` waits for them.
 */
async function recordResponses(page: Page, url: string): Promise<{ atLeast(count: number): Promise<Recorded[]> }> {
  const session = await page.context().newCDPSession(page);
  const urls = new Map<string, string>();
  const extraInfo = new Map<string, Recorded>();
  session.on('Network.requestWillBeSent', (event) => urls.set(event.requestId, event.request.url));
  session.on('Network.responseReceivedExtraInfo', (event) => {
    const headers = Object.fromEntries(Object.entries(event.headers).map(([name, value]) => [name.toLowerCase(), String(value)]));
    extraInfo.set(event.requestId, { status: event.statusCode, headers });
  });
  await session.send('Network.enable');
  const recorded = () => [...extraInfo].filter(([id]) => urls.get(id) === url).map(([, response]) => response);
  return {
    async atLeast(count) {
      const deadline = Date.now() + 5000;
      while (recorded().length < count && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
      return recorded();
    },
  };
}

interface Recorded {
  readonly status: number;
  readonly headers: Record<string, string>;
}

t.test('a single-page app runs the code flow with fetch from its own origin; another origin is refused', async (t) => {
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const spaOrigin = await servePages(t, (origin) => ({
    '/app': scriptPage(issuer, origin, START),
    '/callback': scriptPage(issuer, origin, CALLBACK),
  }));
  const otherOrigin = await servePages(t, (origin) => ({ '/app': scriptPage(issuer, origin, ELSEWHERE) }));

  await startServerWithClients(
    t,
    [
      {
        client_id: 'spa',
        client_name: 'Single-Page App',
        redirect_uris: [`${spaOrigin}/callback`],
        grant_types: ['authorization_code', 'refresh_token'],
        scope: 'read',
        token_endpoint_auth_method: 'none',
      },
    ],
    port,
  );
  const browser = await launchChromium(t);

  t.test(`from ${spaOrigin}, the origin of the redirect URI`, async (t) => {
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${spaOrigin}/app`);
    await page.waitForURL(`${issuer}/oauth2/authorize?**`);
    await page.getByLabel('Username').fill(PROCESS_ALICE.username);
    await page.getByLabel('Password', { exact: true }).fill(PROCESS_ALICE.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL(`${spaOrigin}/callback?**`);
    const result = (await resultOf(page)) as {
      error?: string;
      state: string;
      token: { status: number; body: { access_token: string; refresh_token: string } };
      refresh: { status: number; body: { access_token: string } };
      revoke: { status: number };
      jwks: JSONWebKeySet;
      metadata: { issuer: string; token_endpoint: string };
    };
    t.equal(result.error, undefined, 'no fetch failed');
    t.equal(result.state, 'spa-state');
    t.equal(result.token.status, 200, 'the code redeemed with fetch');
    t.equal(result.refresh.status, 200, 'the refresh token rotated with fetch');
    t.equal(result.revoke.status, 200, 'revoked with fetch, after a preflight for the Authorization header');
    t.same(result.metadata.issuer, issuer);
    t.equal(result.metadata.token_endpoint, `${issuer}/oauth2/token`);
    const { payload } = await jwtVerify(result.refresh.body.access_token, createLocalJWKSet(result.jwks), {
      issuer,
      audience: issuer,
      typ: 'at+jwt',
    });
    t.match(payload, { sub: PROCESS_ALICE.sub, client_id: 'spa', scope: 'read' });
  });

  t.test(`from ${otherOrigin}, an origin no client allows`, async (t) => {
    const page = await (await browser.newContext()).newPage();
    const network = await recordResponses(page, `${issuer}/oauth2/token`);
    await page.goto(`${otherOrigin}/app`);
    t.same(await resultOf(page), { token: 'TypeError', revoke: 'TypeError', jwks: 'read status 200' }, 'the browser refused both calls');
    const tokenResponses = await network.atLeast(1);
    t.equal(tokenResponses.length, 1, 'the token request reached the server');
    const answer = tokenResponses[0] as Recorded;
    t.equal(answer.status, 400, 'and was answered (invalid_grant)');
    t.equal(answer.headers['content-type'], 'application/json;charset=UTF-8');
    t.equal(answer.headers['access-control-allow-origin'], undefined, 'without Access-Control-Allow-Origin');
  });
});

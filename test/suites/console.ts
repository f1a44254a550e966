import type { Test } from 'tap';
import { WEB_SECRET } from '../helpers/authorize-fixtures.js';
import { formFields, InjectBrowser } from '../helpers/browser-flow.js';
import { consoleCookieContent, follow, formOn, nowOf, ROOT, signedInAt, signInOnLoginPage } from '../helpers/console.js';
import { connectApp, consoleTestServer } from '../helpers/console-apps.js';
import { ISSUER } from '../helpers/server.js';
import { tokenRequest } from '../helpers/security-flows.js';
import type { OpenStore } from '../helpers/stores.js';
import { ALICE } from '../helpers/authorize-fixtures.js';

/**
 * The console at /admin through inject(), on a store: its sign-in as a client of the
 * authorization endpoint, the sealed session cookie, the pages, a change (revoke a grant)
 * with its CSRF and Origin checks, the 403 page, token refresh, sign-out.
 */

const SAME_ORIGIN = { origin: ISSUER, 'sec-fetch-site': 'same-origin' };

const consoleServer = consoleTestServer;

export function consoleSuite(t: Test, name: string, open: OpenStore): void {
  t.test(`the console (${name})`, async (t) => {
    t.test(
      'without a session: to the authorization endpoint as the built-in client, code + PKCE, state and nonce sealed in a cookie',
      async (t) => {
        const { app } = await consoleServer(t, open);
        const res = await app.inject({ method: 'GET', url: '/admin/grants?sub=user-alice' });
        t.equal(res.statusCode, 303);
        t.equal(res.headers['cache-control'], 'no-store');
        const location = new URL(res.headers.location as string, ISSUER);
        t.equal(location.pathname, '/oauth2/authorize');
        const query = Object.fromEntries(location.searchParams);
        t.same(Object.keys(query).sort(), [
          'client_id',
          'code_challenge',
          'code_challenge_method',
          'nonce',
          'redirect_uri',
          'resource',
          'response_type',
          'scope',
          'state',
        ]);
        t.match(query, {
          response_type: 'code',
          client_id: 'admin-console',
          redirect_uri: `${ISSUER}/admin/callback`,
          scope: 'openid admin:read admin:write',
          resource: `${ISSUER}/admin/v1`,
          code_challenge_method: 'S256',
          state: /^[A-Za-z0-9_-]{43}$/,
          nonce: /^[A-Za-z0-9_-]{43}$/,
          code_challenge: /^[A-Za-z0-9_-]{43}$/,
        });
        const cookie = (res.cookies as { name: string; value: string }[]).find((c) => c.name === '__Host-oauth_console_sign_in');
        t.match(cookie, { path: '/', httpOnly: true, secure: true, sameSite: 'Lax', maxAge: 600 });
        t.notOk(cookie?.value.includes(query.state as string), 'the state is sealed, not readable in the cookie');
      },
    );

    t.test('an administrator signs in with a password and lands where they were going; the tokens stay sealed', async (t) => {
      const { app, clock } = await consoleServer(t, open);
      const browser = new InjectBrowser(app);
      const login = await follow(browser, await browser.get('/admin/grants?sub=user-alice'));
      t.match(login.body, /<title>Sign in<\/title>/, 'the login page of the authorization endpoint');
      const landed = await signInOnLoginPage(browser, login, ROOT);
      t.equal(landed.statusCode, 200);
      t.match(landed.body, /<h1>Grants<\/h1>/);
      t.match(landed.body, /value="user-alice"/, 'the page it was going to, with its query');
      const sealed = browser.cookie('__Host-oauth_console');
      const content = consoleCookieContent(sealed, nowOf(clock));
      t.match(sealed, /^[A-Za-z0-9_-]{1000,}$/, 'one sealed value');
      t.notOk(sealed?.includes(content?.tokens.accessToken.split('.')[1] as string), 'no token readable in the cookie');
      t.equal(content?.sub, 'root');
      t.same(content?.tokens.scope, ['admin:read', 'admin:write']);
      t.match(content?.tokens.refreshToken, /^[A-Za-z0-9_-]+\.0\./, 'a refresh token, generation 0');
      t.equal(browser.cookie('__Host-oauth_console_sign_in'), undefined, 'the sign-in is over');
    });

    t.test('a page address too long to travel in the sign-in cookie: back to the first page', async (t) => {
      const { app } = await consoleServer(t, open);
      const browser = new InjectBrowser(app);
      const login = await follow(browser, await browser.get(`/admin/grants?sub=${'a'.repeat(2000)}`));
      const landed = await signInOnLoginPage(browser, login, ROOT);
      t.equal(landed.statusCode, 200);
      t.match(landed.body, /<h1>Overview<\/h1>/);
    });

    t.test('grants of a user, revoked after a confirmation: the refresh token dies, the person is the audit actor', async (t) => {
      const { app, audit, store } = await consoleServer(t, open);
      const { grantId, refreshToken } = await connectApp(app, 'printer', ALICE);
      const { browser } = await signedInAt(app, '/admin', ROOT);
      const list = await browser.get('/admin/grants?sub=user-alice&client_id=');
      t.equal(list.statusCode, 200);
      t.match(list.body, `<caption id="grants-caption">Live grants of <code>user-alice</code></caption>`);
      t.match(list.body, `<td><code>${grantId}</code></td><td><code>user-alice</code></td><td><code>printer</code></td>`);
      t.match(
        list.body,
        `<a href="/admin/grants/revoke?sub=user-alice&#38;grant_id=${grantId}">Revoke<span class="visually-hidden"> ${grantId}</span></a>`,
      );
      const confirm = await browser.get(`/admin/grants/revoke?sub=user-alice&grant_id=${grantId}`);
      t.equal(confirm.statusCode, 200);
      t.match(confirm.body, '<h1>Revoke this grant?</h1>');
      const fields = formOn(confirm.body, '/admin/grants/revoke');
      t.same(Object.keys(fields).sort(), ['csrf_token', 'grant_id', 'sub']);

      await t.test('without its CSRF token, or from another origin: refused, nothing changes', async (t) => {
        const { csrf_token: _token, ...withoutToken } = fields;
        for (const [what, sent, headers] of [
          ['no token', withoutToken, SAME_ORIGIN],
          ['a wrong token', { ...fields, csrf_token: 'x'.repeat(43) }, SAME_ORIGIN],
          ['another Origin', fields, { origin: 'https://evil.example' }],
          ['Origin null', fields, { origin: 'null' }],
          ['a cross-site fetch', fields, { 'sec-fetch-site': 'cross-site' }],
        ] as const) {
          const res = await browser.post('/admin/grants/revoke', sent, headers);
          t.equal(res.statusCode, 403, what);
          t.match(res.body, '<h1>Form refused</h1>', what);
          t.equal(res.headers['cache-control'], 'no-store');
        }
        t.equal(await store.isGrantRevoked(grantId), false, 'the grant lives');
      });

      const done = await browser.post('/admin/grants/revoke', fields, SAME_ORIGIN);
      t.equal(done.statusCode, 303);
      t.equal(done.headers.location, '/admin/grants?sub=user-alice&notice=grant-revoked');
      const after = await browser.get(done.headers.location as string);
      t.match(after.body, '<p class="notice" role="status">The grant was revoked.</p>');
      t.match(after.body, '<p class="muted">No live grants.</p>');
      const refused = await tokenRequest(app, 'printer', WEB_SECRET, { grant_type: 'refresh_token', refresh_token: refreshToken });
      t.equal(refused.statusCode, 400);
      t.equal(refused.json().error, 'invalid_grant');
      const changed = audit().find((line) => line.event === 'admin.changed');
      t.match(changed, { audit: true, actor: { sub: 'root' }, entity: 'grant', id: grantId, action: 'revoked', fields: [] });
      const gone = await browser.get(`/admin/grants/revoke?sub=user-alice&grant_id=${grantId}`);
      t.equal(gone.statusCode, 404, 'a revoked grant cannot be confirmed again');
      t.match(gone.body, 'This grant is not live any more');
    });

    t.test('signing keys: each chain, its keys and their state, read-only', async (t) => {
      const { app, keystore } = await consoleServer(t, open);
      const { page } = await signedInAt(app, '/admin/keys', ROOT);
      t.equal(page.statusCode, 200);
      const [key] = keystore.keyTimes();
      t.match(page.body, '<h2 id="chain-es256">ES256 chain</h2>');
      t.match(page.body, `<tr><td><code>${key?.kid}</code></td><td>Signing</td><td>Yes</td>`);
      t.match(page.body, '<p class="muted">No next key is scheduled.</p>');
      t.notMatch(page.body, /<form method="post" action="\/admin\/keys/, 'nothing to change');
    });

    t.test('a person without the role admin: the 403 page, and the admin API refuses the tokens of the session', async (t) => {
      const { app, clock, store } = await consoleServer(t, open);
      const { grantId } = await connectApp(app, 'printer', ALICE);
      const { browser, page } = await signedInAt(app, '/admin', ALICE);
      t.equal(page.statusCode, 403);
      t.match(page.headers, { 'cache-control': 'no-store', 'content-type': 'text/html; charset=utf-8' });
      t.match(page.body, '<h1>Your account is not an administrator of this server</h1>');
      t.match(
        page.body,
        'You are signed in as <strong>user-alice</strong>. The token this console received for your account lacks the admin scopes',
      );
      t.notMatch(page.body, '<nav', 'no console');
      const token = consoleCookieContent(browser.cookie('__Host-oauth_console'), nowOf(clock))?.tokens.accessToken;
      t.same(consoleCookieContent(browser.cookie('__Host-oauth_console'), nowOf(clock))?.tokens.scope, [], 'no admin scope granted');
      const api = await app.inject({ method: 'GET', url: '/admin/v1/keys', headers: { authorization: `Bearer ${token}` } });
      t.equal(api.statusCode, 403);
      t.match(api.json(), { type: 'urn:oauth2-token-service:problem:insufficient-scope', scope: 'admin:read' });
      const csrf = formFields(page.body).csrf_token as string;
      const change = await browser.post('/admin/grants/revoke', { csrf_token: csrf, grant_id: grantId, sub: 'user-alice' }, SAME_ORIGIN);
      t.equal(change.statusCode, 403);
      t.equal(await store.isGrantRevoked(grantId), false, 'nothing revoked');
    });

    t.test('the access token runs out: refreshed on the next page, the cookie resealed', async (t) => {
      const { app, clock, advance } = await consoleServer(t, open, { ACCESS_TOKEN_TTL: '600' });
      const { browser } = await signedInAt(app, '/admin', ROOT);
      const before = consoleCookieContent(browser.cookie('__Host-oauth_console'), nowOf(clock));
      await advance(600);
      const page = await browser.get('/admin/keys');
      t.equal(page.statusCode, 200);
      const after = consoleCookieContent(browser.cookie('__Host-oauth_console'), nowOf(clock));
      t.not(after?.tokens.accessToken, before?.tokens.accessToken, 'a new access token');
      t.match(after?.tokens.refreshToken, /^[A-Za-z0-9_-]+\.1\./, 'the rotated refresh token');
      t.equal(after?.iat, before?.iat, 'the same session');
      await advance(3000);
      const ended = await browser.get('/admin/keys');
      t.equal(ended.statusCode, 303, 'a console session lasts SESSION_TTL: then it signs in again');
    });

    t.test('sign-out: the console grant revoked, both cookies cleared; the next visit signs in again', async (t) => {
      const { app, clock, store } = await consoleServer(t, open);
      const { browser, page } = await signedInAt(app, '/admin', ROOT);
      const tokens = consoleCookieContent(browser.cookie('__Host-oauth_console'), nowOf(clock))?.tokens;
      const out = await browser.post('/admin/sign-out', formOn(page.body, '/admin/sign-out'), SAME_ORIGIN);
      t.equal(out.statusCode, 200);
      t.match(out.body, '<h1>You are signed out of the console</h1>');
      t.same((out.cookies as { name: string; maxAge?: number }[]).map((c) => [c.name, c.maxAge]).sort(), [
        ['__Host-oauth_console', 0],
        ['__Host-oauth_session', 0],
      ]);
      const grantId = JSON.parse(Buffer.from(tokens?.accessToken.split('.')[1] as string, 'base64url').toString()).grant_id;
      t.equal(await store.isGrantRevoked(grantId), true);
      const again = await follow(browser, await browser.get('/admin'));
      t.match(again.body, /<title>Sign in<\/title>/, 'the login page: the browser session ended too');
    });

    t.test('sessions revoked by an operator end the console session', async (t) => {
      const { app, admin } = await consoleServer(t, open);
      const { browser } = await signedInAt(app, '/admin', ROOT);
      await admin.users.revokeSessions('root');
      const res = await browser.get('/admin');
      t.equal(res.statusCode, 303);
      t.match(res.headers.location, /^\/oauth2\/authorize\?/);
      t.equal(browser.cookie('__Host-oauth_console'), undefined, 'its cookie cleared');
    });

    t.test('callbacks that do not belong to a sign-in of this browser', async (t) => {
      const { app } = await consoleServer(t, open);
      const none = await app.inject({ method: 'GET', url: '/admin/callback?code=x&state=y&iss=https%3A%2F%2Fas.example.com' });
      t.equal(none.statusCode, 400);
      t.match(none.body, 'This sign-in took longer than ten minutes, or was started in another browser.');
      const browser = new InjectBrowser(app);
      await browser.get('/admin');
      const wrong = await browser.get('/admin/callback?code=x&state=not-the-state&iss=https%3A%2F%2Fas.example.com');
      t.equal(wrong.statusCode, 400);
      t.match(wrong.body, 'The answer to the sign-in does not belong to the sign-in this browser started.');
      t.equal(browser.cookie('__Host-oauth_console'), undefined, 'no session');
    });
  });
}

import type { Test } from 'tap';
import { ALICE, WEB_SECRET } from '../helpers/authorize-fixtures.js';
import { authorizeUrl, codeRequest, formAction, formFields, InjectBrowser, pkcePair } from '../helpers/browser-flow.js';
import { follow, formOn, PHOTOS_API, signedInAt } from '../helpers/console.js';
import { connectApp, consoleTestServer } from '../helpers/console-apps.js';
import { tokenRequest } from '../helpers/security-flows.js';
import { ISSUER } from '../helpers/server.js';
import type { OpenStore } from '../helpers/stores.js';

/**
 * /account through inject(), on a store: its sign-in (the authorization endpoint, the code's
 * grant revoked at once), the apps a person connected with their scopes in words, revoking
 * one (its refresh token dies, its consent is forgotten, the other app keeps working), CSRF
 * and Origin, and "sign out everywhere" (every browser session ends, nothing else).
 */

const SAME_ORIGIN = { origin: ISSUER, 'sec-fetch-site': 'same-origin' };
const moment = (seconds: number, lang = 'en') =>
  `${new Intl.DateTimeFormat(lang, { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' }).format(new Date(seconds * 1000))} UTC`;

const accountServer = consoleTestServer;

const refresh = (app: Parameters<typeof tokenRequest>[0], clientId: string, token: string) =>
  tokenRequest(app, clientId, WEB_SECRET, { grant_type: 'refresh_token', refresh_token: token });

export function accountSuite(t: Test, name: string, open: OpenStore): void {
  t.test(`the account page (${name})`, async (t) => {
    t.test('without a session: signs in through the authorization endpoint (openid only) and comes back', async (t) => {
      const { app } = await accountServer(t, open);
      const browser = new InjectBrowser(app);
      const first = await browser.get('/account');
      t.equal(first.statusCode, 303);
      const query = Object.fromEntries(new URL(first.headers.location as string, ISSUER).searchParams);
      t.match(query, {
        client_id: 'admin-console',
        scope: 'openid',
        redirect_uri: `${ISSUER}/admin/callback`,
        code_challenge_method: 'S256',
      });
      t.equal(query.resource, undefined, 'no resource: no token is wanted');
      const { page } = await signedInAt(app, '/account', ALICE, browser);
      t.equal(page.statusCode, 200);
      t.match(page.headers, { 'cache-control': 'no-store', 'referrer-policy': 'same-origin', 'x-frame-options': 'DENY' });
      t.match(page.body, '<h1>Your account</h1>');
      t.match(page.body, '<dt>Name</dt><dd>Alice</dd>');
      t.match(page.body, '<dt>User ID</dt><dd><code>user-alice</code></dd>');
      t.match(page.body, /<dt>Signed in<\/dt><dd>with a password, [^<]+ UTC<\/dd>/);
      t.match(page.body, '<p class="muted">You have not connected any app.</p>', "the sign-in's own grant was revoked at once");
    });

    t.test('the apps connected, with their scopes in words; one revoked, the other keeps working', async (t) => {
      const { app, store, audit, clock, advance } = await accountServer(t, open);
      const photos = await connectApp(app, 'photos', ALICE);
      const photosGranted = Math.floor(clock.now / 1000);
      await advance(60);
      const printer = await connectApp(app, 'printer', ALICE);
      await advance(60);
      const used = await refresh(app, 'photos', photos.refreshToken);
      t.equal(used.statusCode, 200);
      const photosUsed = Math.floor(clock.now / 1000);
      const { browser, page } = await signedInAt(app, '/account', ALICE);
      t.equal(page.statusCode, 200);
      const body = page.body.replace(/\n/g, '');
      t.match(body, /<h3 id="app-[^"]+">Acme Prints<\/h3>.*<h3 id="app-[^"]+">Acme Photos<\/h3>/, 'newest first');
      t.match(body, '<p><a href="https://photos.example.com/" rel="noreferrer">https://photos.example.com/</a></p>');
      t.match(
        body,
        '<ul><li><strong>Know who you are: your user identifier at this service</strong> <span class="muted"><code>openid</code></span></li><li><strong>See your photos and albums</strong> <span class="muted"><code>photos:read</code></span></li><li><strong>Upload and edit photos</strong> <span class="muted"><code>photos:write</code></span></li></ul>',
      );
      t.match(body, `<li>Acme Photos API <span class="muted"><code>${PHOTOS_API}</code></span></li>`);
      t.match(body, `<dt>Connected</dt><dd>${moment(photosGranted)}</dd><dt>Last used</dt><dd>${moment(photosUsed)}</dd>`);
      t.match(body, 'Revoke access<span class="visually-hidden"> Acme Prints</span>');

      const german = await app.inject({
        method: 'GET',
        url: '/account',
        headers: { cookie: `__Host-oauth_session=${browser.cookie('__Host-oauth_session')}`, 'accept-language': 'de' },
      });
      t.match(german.body, '<h1>Ihr Konto</h1>');
      t.match(german.body, '<strong>Ihre Fotos und Alben ansehen</strong>');

      const fields: Record<string, string> = { ...formOn(page.body, '/account/apps/revoke'), grant_id: printer.grantId };
      await t.test('a Revoke without the CSRF token or from another origin changes nothing', async (t) => {
        const { csrf_token: _token, ...without } = fields;
        t.equal((await browser.post('/account/apps/revoke', without, SAME_ORIGIN)).statusCode, 403);
        t.equal((await browser.post('/account/apps/revoke', fields, { origin: 'https://evil.example' })).statusCode, 403);
        t.equal(await store.isGrantRevoked(printer.grantId), false);
      });
      await t.test("another person's grant id changes nothing", async (t) => {
        const bobs = await connectApp(app, 'printer', { username: 'bob', password: 'bob-password-1' });
        const res = await browser.post('/account/apps/revoke', { ...fields, grant_id: bobs.grantId }, SAME_ORIGIN);
        t.equal(res.statusCode, 303);
        t.equal(res.headers.location, '/account?notice=gone');
        t.equal(await store.isGrantRevoked(bobs.grantId), false);
      });

      const done = await browser.post('/account/apps/revoke', fields, SAME_ORIGIN);
      t.equal(done.statusCode, 303);
      t.equal(done.headers.location, '/account?notice=revoked&client_id=printer');
      const after = await browser.get(done.headers.location as string);
      t.match(after.body, '<p class="notice" role="status">Acme Prints no longer has access.</p>');
      t.notMatch(after.body, '>Acme Prints</h3>');
      const refused = await refresh(app, 'printer', printer.refreshToken);
      t.equal(refused.statusCode, 400);
      t.equal(refused.json().error, 'invalid_grant');
      t.equal(
        (await refresh(app, 'photos', (used.json() as { refresh_token: string }).refresh_token)).statusCode,
        200,
        'the other app keeps working',
      );
      t.equal(await store.consents.findConsent('user-alice', 'printer'), undefined, 'its consent is forgotten');
      t.ok(await store.consents.findConsent('user-alice', 'photos'), "the other's stays");
      const revoked = audit().filter((line) => line.event === 'grant.revoked');
      t.equal(revoked.length, 1, 'one grant.revoked, by the user');
      t.match(revoked[0], {
        grantId: printer.grantId,
        clientId: 'printer',
        sub: 'user-alice',
        reason: 'user',
        actor: { sub: 'user-alice' },
      });
    });

    t.test('sign out everywhere: every browser session of the person ends, and nothing else', async (t) => {
      const { app, audit } = await accountServer(t, open);
      const photos = await connectApp(app, 'photos', ALICE);
      const other = await signedInAt(app, '/account', ALICE);
      const { browser, page } = await signedInAt(app, '/account', ALICE);
      const { csrf_token: _token, ...without } = formOn(page.body, '/account/sign-out-everywhere');
      t.equal((await browser.post('/account/sign-out-everywhere', without, SAME_ORIGIN)).statusCode, 403, 'not without the CSRF token');
      t.equal((await other.browser.get('/account')).statusCode, 200, 'still signed in');
      const out = await browser.post('/account/sign-out-everywhere', formOn(page.body, '/account/sign-out-everywhere'), SAME_ORIGIN);
      t.equal(out.statusCode, 200);
      t.match(out.body, '<h1>You are signed out everywhere</h1>');
      const elsewhere = await other.browser.get('/account');
      t.equal(elsewhere.statusCode, 303, "the other browser's session ended");
      t.match(elsewhere.headers.location, /^\/oauth2\/authorize\?/);
      const login = await follow(other.browser, elsewhere);
      t.match(login.body, /<title>Sign in<\/title>/);
      t.equal((await refresh(app, 'photos', photos.refreshToken)).statusCode, 200, 'the apps keep their access');
      t.match(
        audit().find((line) => line.event === 'sessions.revoked'),
        { sub: 'user-alice', actor: { sub: 'user-alice' } },
      );
    });

    t.test('the login and consent pages link to the account page', async (t) => {
      const { app } = await accountServer(t, open);
      const browser = new InjectBrowser(app);
      const link = '<p class="muted"><a href="/account">Your account and connected apps</a></p>';
      const { challenge } = pkcePair();
      const login = await browser.get(
        authorizeUrl(codeRequest('printer', 'https://prints.example.com/callback', challenge, 'photos:read'), [PHOTOS_API]),
      );
      t.match(login.body, '<title>Sign in</title>');
      t.match(login.body, link, 'on the login page');
      const consent = await browser.get(
        (await browser.post(formAction(login.body), { ...formFields(login.body), ...ALICE })).headers.location as string,
      );
      t.match(consent.body, '<title>Allow access?</title>');
      t.match(consent.body, link, 'on the consent page');
    });
  });
}

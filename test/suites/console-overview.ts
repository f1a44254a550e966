import type { Test } from 'tap';
import { WEB_SECRET } from '../helpers/authorize-fixtures.js';
import { ROOT, signedInAt } from '../helpers/console.js';
import { consoleTestServer } from '../helpers/console-apps.js';
import { JSON_HEADERS, NATIVE_CLIENT } from '../helpers/registration.js';
import { tokenRequest } from '../helpers/security-flows.js';
import type { OpenStore } from '../helpers/stores.js';

/**
 * The console's overview through inject(), on a store: what it counts (clients by source,
 * dynamically registered ones among them; users by source, federated ones among them;
 * grants) in English and German, and the last hour as charts.
 */

const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  pragma: 'no-cache',
  'referrer-policy': 'same-origin',
  'x-frame-options': 'DENY',
};
const CSP =
  /^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/=]+'; script-src 'none'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'$/;

export function consoleOverviewSuite(t: Test, name: string, open: OpenStore): void {
  t.test(`the console's overview (${name})`, async (t) => {
    t.test('counts, and the last hour as inline SVG charts with their data tables', async (t) => {
      const { app, clock } = await consoleTestServer(t, open);
      await tokenRequest(app, 'service', WEB_SECRET, { grant_type: 'client_credentials' });
      await tokenRequest(app, 'photos', WEB_SECRET, { grant_type: 'refresh_token', refresh_token: 'nope' });
      const { page } = await signedInAt(app, '/admin', ROOT);
      t.equal(page.statusCode, 200);
      t.match(page.headers, PAGE_HEADERS);
      t.match(page.headers['content-security-policy'], CSP, 'no script, one hashed style');
      t.match(page.body, '<a href="/admin" aria-current="page">Overview</a>');
      t.match(
        page.body,
        '<div><dt>Clients</dt><dd>4<span>3 from the clients file, 0 added here, 1 built in, 0 registered dynamically</span></dd></div>',
      );
      t.match(
        page.body,
        '<div><dt>Users</dt><dd>3<span>3 from the users file, 0 added here, 0 signed in through a provider</span></dd></div>',
      );
      t.match(page.body, '<div><dt>Active grants</dt><dd>1<span>of these clients</span></dd></div>', "the console's own");
      const minute = new Intl.DateTimeFormat('en', { hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZone: 'UTC' });
      const [from, to] = [clock.now - 59 * 60_000, clock.now].map((ms) => minute.format(new Date(ms)));
      t.match(page.body, '<svg role="img" aria-labelledby="issued-title issued-desc" viewBox="0 0 640 200" width="640" height="200">');
      t.match(page.body, '<title id="issued-title">Tokens issued, by grant type</title>');
      t.match(page.body, `<desc id="issued-desc">Per minute from ${from} to ${to} UTC: authorization_code 1, client_credentials 1.</desc>`);
      t.match(page.body, `<desc id="refused-desc">Per minute from ${from} to ${to} UTC: invalid_grant 1.</desc>`);
      t.match(
        page.body,
        `<tbody><tr><th scope="row">${to}</th><td class="number">1</td><td class="number">1</td></tr></tbody>`,
        'the refusals as a table',
      );
      t.notMatch(page.body, /<script|style="/, 'no script, no inline style');
    });

    t.test('clients registered at /oauth2/register and federated users are counted while they live, in English and German', async (t) => {
      const { app, store } = await consoleTestServer(t, open, { DYNAMIC_CLIENT_REGISTRATION: 'open' });
      const registered: { client_id: string; registration_access_token: string }[] = [];
      for (let i = 0; i < 3; i++) {
        const res = await app.inject({ method: 'POST', url: '/oauth2/register', headers: JSON_HEADERS, payload: NATIVE_CLIENT });
        t.equal(res.statusCode, 201);
        registered.push(res.json());
      }
      const [gone] = registered;
      const deleted = await app.inject({
        method: 'DELETE',
        url: `/oauth2/register/${gone?.client_id}`,
        headers: { authorization: `Bearer ${gone?.registration_access_token}` },
      });
      t.equal(deleted.statusCode, 204, 'one deleted again (RFC 7592)');
      await store.upstream.saveFederatedProfile('fed_one', { name: 'One' }, 600, 'corp');
      await store.upstream.saveFederatedProfile('fed_two', { name: 'Two' }, 600, 'github');
      await store.upstream.saveFederatedProfile('fed_one', { name: 'One again' }, 600, 'corp');

      const { browser, page } = await signedInAt(app, '/admin', ROOT);
      t.equal(page.statusCode, 200);
      t.match(
        page.body,
        '<div><dt>Clients</dt><dd>6<span>3 from the clients file, 0 added here, 1 built in, 2 registered dynamically</span></dd></div>',
      );
      t.match(
        page.body,
        '<div><dt>Users</dt><dd>5<span>3 from the users file, 0 added here, 2 signed in through a provider</span></dd></div>',
        'a user who signed in twice counts once',
      );
      const german = await app.inject({
        method: 'GET',
        url: '/admin',
        headers: { cookie: `__Host-oauth_console=${browser.cookie('__Host-oauth_console')}`, 'accept-language': 'de' },
      });
      t.equal(german.statusCode, 200);
      t.match(
        german.body,
        '<div><dt>Clients</dt><dd>6<span>3 aus der Client-Datei, 0 hier angelegt, 1 eingebaut, 2 dynamisch registriert</span></dd></div>',
      );
      t.match(
        german.body,
        '<div><dt>Benutzer</dt><dd>5<span>3 aus der Benutzerdatei, 0 hier angelegt, 2 über einen Identitätsanbieter angemeldet</span></dd></div>',
      );
    });
  });
}

import t, { type Test } from 'tap';
import { federatedSubject } from '../../src/identity/federated-subject.js';
import { consoleCookieContent } from '../helpers/console.js';
import { ISSUER } from '../helpers/server.js';
import { memoryStore } from '../helpers/stores.js';
import { ACCOUNTS, continueWith, type Federation, federation, pageTitle } from '../helpers/upstream-fixtures.js';
import type { BrowserResponse, FlowBrowser } from '../helpers/upstream-browser.js';
import { visitUpstream } from '../helpers/upstream-browser.js';

/**
 * An administrator signs in to the console through an upstream provider (node-oidc-provider):
 * the provider's `roles` rule maps the `groups` claim `staff` to the role admin, so bob gets
 * the console and ada, signed in the same way, gets the 403 page. The account page says how
 * each signed in.
 */

async function setup(t: Test): Promise<Federation> {
  return federation(t, {
    store: await memoryStore(t),
    providers: (u) => [
      u.providerEntry('corp', { name: 'Corporate SSO', scope: 'openid email profile groups', roles: { admin: { groups: 'staff' } } }),
    ],
  });
}

/** Opens `path` in a new browser, signs in with "Continue with Corporate SSO" as `login`, and follows on to the page. */
async function throughProvider(f: Federation, path: string, login: string): Promise<{ browser: FlowBrowser; page: BrowserResponse }> {
  const browser = f.browser();
  const loginPage = await browser.follow(await browser.get(path));
  if (!loginPage.body.includes('Continue with Corporate SSO')) throw new Error(`not our login page: ${loginPage.status}`);
  const back = await visitUpstream(browser, await continueWith(browser, loginPage, 'corp'), f.upstream.issuer, { login });
  return { browser, page: await browser.follow(back) };
}

t.test('the console through an upstream provider: its roles rule decides who administers', async (t) => {
  const f = await setup(t);
  const now = () => Math.floor(f.server.clock.now / 1000);

  t.test('bob (group staff): the overview, with the admin scopes', async (t) => {
    const { browser, page } = await throughProvider(f, '/admin', ACCOUNTS.bob.sub);
    t.equal(page.status, 200);
    t.equal(pageTitle(page), 'Overview');
    t.match(page.body, `Signed in as <strong>${ACCOUNTS.bob.email}</strong>.`, 'named by the email the provider gave');
    const session = consoleCookieContent(browser.cookie(ISSUER, '__Host-oauth_console'), now());
    t.equal(session?.sub, federatedSubject('corp', ACCOUNTS.bob.sub));
    t.same(session?.tokens.scope, ['admin:read', 'admin:write']);
    const grants = await browser.get('/admin/grants');
    t.equal(grants.status, 200, 'and the other pages');
    const account = await browser.get('/account');
    t.match(account.body, /<dt>Signed in<\/dt><dd>through Corporate SSO, [^<]+ UTC<\/dd>/);
    t.match(account.body, `<dt>Email</dt><dd>${ACCOUNTS.bob.email}</dd>`);
  });

  t.test('ada (not in staff): the 403 page', async (t) => {
    const { page } = await throughProvider(f, '/admin', ACCOUNTS.ada.sub);
    t.equal(page.status, 403);
    t.equal(pageTitle(page), 'Your account is not an administrator of this server');
    t.match(page.body, `You are signed in as <strong>${ACCOUNTS.ada.email}</strong>.`);
  });
});

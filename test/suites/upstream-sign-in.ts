import { decodeJwt } from 'jose';
import type { Test } from 'tap';
import { federatedSubject } from '../../src/identity/federated-subject.js';
import { de } from '../../src/pages/messages/de.js';
import { en } from '../../src/pages/messages/en.js';
import { escapeHtml } from '../../src/pages/html.js';
import { WEB_REDIRECT, WEB_SECRET } from '../helpers/authorize-fixtures.js';
import { authorizeUrl } from '../helpers/browser-flow.js';
import { RESOURCE, verifiedIdToken } from '../helpers/oidc-fixtures.js';
import { pageForms, visitUpstream } from '../helpers/upstream-browser.js';
import { basic, FORM_HEADERS, ISSUER } from '../helpers/server.js';
import type { OpenStore } from '../helpers/stores.js';
import {
  ACCOUNTS,
  CLIENT_NONCE,
  CLIENT_STATE,
  callbackUrl,
  clientAnswer,
  codeRequest,
  errorAtClient,
  continueWith,
  federatedCode,
  federatedTokens,
  federation,
  pageTitle,
} from '../helpers/upstream-fixtures.js';

/**
 * Sign-in through an upstream OpenID provider (node-oidc-provider, over real HTTP), our
 * server through inject(), on a store (memory and Redis): the login page's buttons, the ways
 * straight to the provider, the federated subject, the access rules, what the provider
 * receives, and a provider that is down (the callbacks: upstream-callbacks.ts).
 */

const BUTTON = (id: string, text: string) => `<button type="submit" name="provider" value="${id}">${text}</button>`;

export function upstreamSignInSuite(t: Test, openStore: OpenStore): void {
  t.test('the login page: a "Continue with …" button per provider beside the password form, in German too', async (t) => {
    const f = await federation(t, {
      store: await openStore(t),
      providers: (u) => [u.providerEntry('corp', { name: 'Corporate SSO' }), u.providerEntry('other', { name: 'Partner & Co' })],
    });
    const { params } = codeRequest();
    for (const [language, t9n] of [
      ['en', en],
      ['de', de],
    ] as const) {
      const browser = f.browser({ 'accept-language': language });
      const page = await browser.get(authorizeUrl(params));
      t.equal(page.status, 200);
      t.equal(page.body.match(/name="provider"/g)?.length, 2, `${language}: one button per provider`);
      t.ok(page.body.includes(BUTTON('corp', t9n.continueWith('Corporate SSO'))), `${language}: ${t9n.continueWith('Corporate SSO')}`);
      t.ok(page.body.includes(BUTTON('other', escapeHtml(t9n.continueWith('Partner & Co')))), `${language}: the name escaped`);
      t.ok(page.body.includes('name="password"'), 'the password form beside them');
      t.match(page.headers['content-security-policy'], `form-action 'self' https://app.example.com ${f.upstream.issuer}`);
    }
    t.equal(de.continueWith('X'), 'Weiter mit X');
    const browser = f.browser();
    const chosen = await continueWith(browser, await browser.get(authorizeUrl(params)), 'other');
    t.equal(chosen.status, 303);
    t.equal(chosen.location?.searchParams.get('redirect_uri'), callbackUrl('other'), "to that provider's sign-in");
    t.equal(f.upstream.authorizationRequests().length, 0, 'the page itself never asks the upstream');
    // The button's form without its CSRF token, or from another browser: refused, nowhere to go.
    const page = await browser.get(authorizeUrl(params));
    const form = pageForms(page).find((candidate) => candidate.action.pathname === '/oauth2/authorize/upstream');
    const { csrf_token: _, ...withoutToken } = form?.fields ?? {};
    t.equal((await browser.post('/oauth2/authorize/upstream', { ...withoutToken, provider: 'corp' })).status, 403);
    t.equal((await f.browser().post('/oauth2/authorize/upstream', { ...form?.fields, provider: 'corp' })).status, 403);
  });

  t.test(
    'no local users and one provider: /oauth2/authorize answers 303 straight to it; two: the page, without a password form',
    async (t) => {
      const store = await openStore(t);
      const one = await federation(t, { store, localUsers: false });
      const res = await one.browser().get(authorizeUrl(codeRequest().params));
      t.equal(res.status, 303);
      t.equal(`${res.location?.origin}${res.location?.pathname}`, `${one.upstream.issuer}/auth`);
      t.equal(res.headers['cache-control'], 'no-store');
      const two = await federation(t, {
        store,
        localUsers: false,
        runningUpstream: one.upstream,
        providers: (u) => [u.providerEntry('corp'), u.providerEntry('other')],
      });
      const page = await two.browser().get(authorizeUrl(codeRequest().params));
      t.equal(page.status, 200);
      t.equal(page.body.match(/name="provider"/g)?.length, 2);
      t.notOk(page.body.includes('name="password"'), 'nobody could sign in with a password');
    },
  );

  t.test('idp= goes straight to the provider it names; an unknown id only shows the page', async (t) => {
    const f = await federation(t, {
      store: await openStore(t),
      providers: (u) => [u.providerEntry('corp'), u.providerEntry('other')],
    });
    const named = await f.browser().get(authorizeUrl(codeRequest({ idp: 'other' }).params));
    t.equal(named.status, 303);
    t.equal(named.location?.searchParams.get('redirect_uri'), callbackUrl('other'));
    const unknown = await f.browser().get(authorizeUrl(codeRequest({ idp: 'nope' }).params));
    t.equal(unknown.status, 200);
    t.equal(unknown.body.match(/name="provider"/g)?.length, 2);
  });

  t.test('prompt=none never goes upstream: login_required at the client', async (t) => {
    const f = await federation(t, { store: await openStore(t), localUsers: false });
    for (const extra of [{ prompt: 'none' }, { prompt: 'none', idp: 'corp' }]) {
      const res = await f.browser().get(authorizeUrl(codeRequest(extra).params));
      t.equal(res.status, 302);
      t.same(clientAnswer(res.location as URL), errorAtClient('login_required', 'the user is not signed in'));
    }
    t.equal(f.upstream.requests.length, 0, 'the upstream heard nothing, not even discovery');
  });

  t.test(
    'a sign-in through the upstream: a code, tokens for a fed_ subject, the ID token, userinfo with the upstream profile',
    async (t) => {
      const f = await federation(t, { store: await openStore(t) });
      const { location, tokens } = await federatedTokens(f, { login: ACCOUNTS.ada.sub });
      t.equal(location.searchParams.get('state'), CLIENT_STATE);
      t.equal(location.searchParams.get('iss'), ISSUER);
      const sub = federatedSubject('corp', ACCOUNTS.ada.sub);
      t.match(sub, /^fed_[A-Za-z0-9_-]{43}$/);
      t.equal(decodeJwt(tokens.access_token as string).sub, sub, "the access token's sub");
      const { claims } = await verifiedIdToken(f.server, tokens.id_token as string);
      t.same([claims.sub, claims.aud, claims.nonce], [sub, 'web', CLIENT_NONCE], "the ID token's sub is the same");
      t.equal(claims.email, undefined, 'profile claims come from userinfo, as for local users');
      const userinfo = await f.server.app.inject({ url: '/oauth2/userinfo', headers: { authorization: `Bearer ${tokens.access_token}` } });
      t.equal(userinfo.statusCode, 200, userinfo.body);
      t.same(userinfo.json(), {
        sub,
        name: ACCOUNTS.ada.name,
        preferred_username: ACCOUNTS.ada.preferred_username,
        picture: ACCOUNTS.ada.picture,
        email: ACCOUNTS.ada.email,
        email_verified: true,
      });
    },
  );

  t.test('the federated sub: the same at every sign-in, another for another user, another under another provider id', async (t) => {
    const f = await federation(t, {
      store: await openStore(t),
      providers: (u) => [u.providerEntry('corp'), u.providerEntry('other')],
    });
    const subOf = async (login: string, idp = 'corp') =>
      decodeJwt((await federatedTokens(f, { login }, { extra: { idp } })).tokens.access_token as string).sub;
    const first = await subOf(ACCOUNTS.ada.sub);
    t.equal(await subOf(ACCOUNTS.ada.sub), first, 'stable across two sign-ins (two browsers)');
    t.not(await subOf(ACCOUNTS.bob.sub), first, 'another upstream user');
    const elsewhere = await subOf(ACCOUNTS.ada.sub, 'other');
    t.not(elsewhere, first, 'the same upstream subject under another provider id');
    t.equal(elsewhere, federatedSubject('other', ACCOUNTS.ada.sub));
  });

  t.test('the pages name a federated user by the email their provider gave, never by the fed_ sub', async (t) => {
    const f = await federation(t, { store: await openStore(t) });
    const browser = f.browser();
    const toUpstream = await browser.get(authorizeUrl(codeRequest({ idp: 'corp' }).params));
    const back = await visitUpstream(browser, toUpstream, f.upstream.issuer, { login: ACCOUNTS.ada.sub });
    const consent = await browser.follow(back);
    t.equal(consent.status, 200);
    t.match(consent.body, `<strong>${ACCOUNTS.ada.email}</strong>`, 'consent: "Signed in as ada@example.com"');
    t.notMatch(consent.body, 'fed_');
    // Asked to sign in again (prompt=login): the login page says who is signed in the same way.
    const again = await browser.get(authorizeUrl(codeRequest({ prompt: 'login' }).params));
    t.match(again.body, `<strong>${ACCOUNTS.ada.email}</strong>`);
    t.notMatch(again.body, 'fed_');
  });

  t.test('access rules refuse: outside allowed_email_domains, an unverified email, a required claim missing → access_denied', async (t) => {
    const f = await federation(t, {
      store: await openStore(t),
      providers: (u) => [
        u.providerEntry('corp', {
          scope: 'openid email profile groups',
          allowed_email_domains: ['Example.com'],
          required_claims: { groups: ['mcp-users', 'admins'] },
        }),
      ],
    });
    for (const account of [ACCOUNTS.eve, ACCOUNTS.unverified, ACCOUNTS.guest]) {
      const { location } = await federatedCode(f, { login: account.sub });
      t.same(
        clientAnswer(location),
        errorAtClient('access_denied', 'the identity provider signed the user in, but this server does not let that user sign in'),
        account.sub,
      );
    }
    t.ok((await federatedCode(f, { login: ACCOUNTS.ada.sub })).location.searchParams.has('code'), 'ada passes every rule');
  });

  t.test('a federated user the operator disabled (a subject mark): their session ends, their next sign-in is access_denied', async (t) => {
    const f = await federation(t, { store: await openStore(t) });
    const first = await federatedCode(f, { login: ACCOUNTS.ada.sub });
    t.ok(first.location.searchParams.has('code'));
    const standing = await first.browser.get(authorizeUrl(codeRequest().params));
    t.equal(standing.status, 302, 'her session stands: a code at once');
    await f.server.admin.users.setDisabled(federatedSubject('corp', ACCOUNTS.ada.sub), true);
    const ended = await first.browser.get(authorizeUrl(codeRequest().params));
    t.equal(ended.status, 200, 'her session ended: the login page');
    const { location } = await federatedCode(f, { login: ACCOUNTS.ada.sub });
    t.same(
      clientAnswer(location),
      errorAtClient('access_denied', 'the identity provider signed the user in, but this server does not let that user sign in'),
    );
    t.ok((await federatedCode(f, { login: ACCOUNTS.bob.sub })).location.searchParams.has('code'), 'another user signs in');
  });

  t.test(
    'the upstream receives our client id, our redirect URI, its scope, state, nonce and S256: nothing of the client request',
    async (t) => {
      const f = await federation(t, { store: await openStore(t), providers: (u) => [u.providerEntry('corp', { scope: 'openid email' })] });
      const extra = { idp: 'corp', scope: 'openid email profile mcp:tools', login_hint: 'ada@example.com', ui_locales: 'de' };
      const resources = [RESOURCE];
      const first = await federatedCode(f, { login: ACCOUNTS.ada.sub }, { extra, resources });
      // The same browser, signed in here and upstream: prompt=login and max_age=0 ask both for a fresh sign-in.
      const again = { resources, browser: first.browser };
      const login = await federatedCode(f, { login: ACCOUNTS.ada.sub }, { ...again, extra: { ...extra, prompt: 'login' } });
      const maxAge = await federatedCode(f, { login: ACCOUNTS.ada.sub }, { ...again, extra: { ...extra, max_age: '0' } });
      for (const { location } of [first, login, maxAge]) t.ok(location.searchParams.has('code'), location.href);
      const received = f.upstream.authorizationRequests();
      t.equal(received.length, 3);
      const common = ['client_id', 'code_challenge', 'code_challenge_method', 'nonce', 'redirect_uri', 'response_type', 'scope', 'state'];
      t.same(
        received.map((q) => [...q.keys()].sort()),
        [common, [...common, 'prompt'].sort(), [...common, 'max_age', 'prompt'].sort()],
      );
      for (const query of received) {
        t.same(
          [
            query.get('client_id'),
            query.get('redirect_uri'),
            query.get('scope'),
            query.get('response_type'),
            query.get('code_challenge_method'),
          ],
          [f.upstream.clientId, callbackUrl('corp'), 'openid email', 'code', 'S256'],
        );
        t.not(query.get('state'), CLIENT_STATE);
        t.not(query.get('nonce'), CLIENT_NONCE);
        t.match(query.get('state'), /^[A-Za-z0-9_-]{43}$/);
      }
      t.equal(received[1]?.get('prompt'), 'login', 'prompt=login on our request: a fresh sign-in upstream');
      t.same([received[2]?.get('prompt'), received[2]?.get('max_age')], ['login', '0']);
      // Nothing of the client's request in any request the upstream received (discovery, token, userinfo included).
      const values = f.upstream.requests.flatMap((r) => [...r.query.values()]);
      for (const leaked of [RESOURCE, WEB_REDIRECT, CLIENT_STATE, CLIENT_NONCE, 'web', 'ada@example.com', 'de'])
        t.notOk(values.includes(leaked), `never sent: ${leaked}`);
      t.notOk(
        values.some((v) => v.includes('mcp:tools') || v.includes('profile')),
        "never the client's scope",
      );
    },
  );

  t.test(
    'the upstream stopped: the 503 page (upstream_unavailable) at once, the rest of the server unaffected; back up: works',
    async (t) => {
      const f = await federation(t, { store: await openStore(t) });
      await f.upstream.stop();
      const browser = f.browser();
      const down = await browser.get(authorizeUrl(codeRequest({ idp: 'corp' }).params));
      t.equal(down.status, 503);
      t.equal(down.headers['retry-after'], '5');
      t.equal(pageTitle(down), en.errorTitles.upstream_unavailable);
      t.match(down.body, '<code>temporarily_unavailable</code>');
      const page = await browser.get(authorizeUrl(codeRequest().params));
      t.equal(page.status, 200, 'the login page still shows');
      t.equal((await continueWith(browser, page, 'corp')).status, 503, 'its button: the same page');
      const token = await f.server.app.inject({
        method: 'POST',
        url: '/oauth2/token',
        headers: { ...FORM_HEADERS, authorization: basic('service', WEB_SECRET) },
        payload: 'grant_type=client_credentials&scope=read',
      });
      t.equal(token.statusCode, 200, 'the token endpoint serves client_credentials');
      await f.upstream.start();
      await f.server.advance(5);
      const { location } = await federatedCode(f, { login: ACCOUNTS.ada.sub });
      t.ok(location.searchParams.has('code'), 'up again: a sign-in completes, without a restart');
    },
  );
}

import t, { type Test } from 'tap';
import { ALICE, AUTHORIZE_CLIENTS, testUsers, WEB_REDIRECT } from '../helpers/authorize-fixtures.js';
import { formAction, formFields } from '../helpers/browser-flow.js';
import { buildTestServer } from '../helpers/server.js';

/**
 * The cookies of the browser pages (src/session/cookies.ts): `__Host-` names, Secure and
 * Path=/ when the issuer is https (RFC 6265bis §4.1.3.2); plain names, no Secure, the
 * issuer's path when it is http (local development). Set-Cookie is asserted as
 * sent, then the cookie is read back on the next request.
 */

const REQUEST = { response_type: 'code', client_id: 'web', redirect_uri: WEB_REDIRECT, scope: 'read', state: 'st-1' };

async function server(t: Test, issuer: string) {
  return buildTestServer(t, { clients: AUTHORIZE_CLIENTS, users: testUsers(), env: { ISSUER: issuer } });
}

/** The Set-Cookie lines of a response, with each cookie's value replaced by `<value>` (an empty one kept). */
function setCookies(headers: Record<string, unknown>): string[] {
  const raw = headers['set-cookie'];
  const lines = raw === undefined ? [] : Array.isArray(raw) ? (raw as string[]) : [raw as string];
  return lines.map((line) => line.replace(/^([^=]+)=[^;]+/, '$1=<value>'));
}

/** The value of cookie `name` in the Set-Cookie lines. */
function valueOf(headers: Record<string, unknown>, name: string): string {
  const raw = headers['set-cookie'];
  const lines = Array.isArray(raw) ? (raw as string[]) : [raw as string];
  const line = lines.find((l) => l.startsWith(`${name}=`)) as string;
  return line.slice(name.length + 1).split(';')[0] as string;
}

/** The login page, the password posted, the marked request shown with the session read back: each Set-Cookie on the way. */
async function signIn(t: Test, issuer: string, pages: string, names: { session: string; csrf: string }) {
  const { app } = await server(t, issuer);
  const authorize = `${pages}authorize?${new URLSearchParams(REQUEST)}`;
  const login = await app.inject({ method: 'GET', url: authorize });
  t.equal(login.statusCode, 200);
  const csrf = valueOf(login.headers, names.csrf);
  const posted = await app.inject({
    method: 'POST',
    url: formAction(login.body),
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `${names.csrf}=${csrf}` },
    payload: new URLSearchParams({ ...formFields(login.body), ...ALICE }).toString(),
  });
  t.equal(posted.statusCode, 303);
  const session = valueOf(posted.headers, names.session);
  const consent = await app.inject({
    method: 'GET',
    url: new URL(posted.headers.location as string, issuer).href.slice(new URL(issuer).origin.length),
    headers: { cookie: `${names.csrf}=${csrf}; ${names.session}=${session}` },
  });
  t.equal(consent.statusCode, 200);
  t.match(consent.body, 'Signed in as <strong>user-alice</strong>', 'the session cookie was read back');
  t.match(consent.body, '<h1>Allow access?</h1>', 'and the CSRF cookie: the consent form is offered');
  return { app, login, posted, consent, csrf, session };
}

t.test('an https issuer: __Host- cookies, Secure, Path=/, no Domain', async (t) => {
  const names = { session: '__Host-oauth_session', csrf: '__Host-oauth_csrf' };
  const { app, login, posted, session } = await signIn(t, 'https://as.example.com', '/oauth2/', names);
  t.same(setCookies(login.headers), ['__Host-oauth_csrf=<value>; Path=/; HttpOnly; Secure; SameSite=Lax']);
  t.same(setCookies(posted.headers), ['__Host-oauth_session=<value>; Max-Age=3600; Path=/; HttpOnly; Secure; SameSite=Lax']);

  const plain = await app.inject({
    method: 'GET',
    url: `/oauth2/authorize?${new URLSearchParams(REQUEST)}`,
    headers: { cookie: `oauth_session=${session}` },
  });
  t.match(plain.body, '<h1>Sign in</h1>', 'the same session under a plain name (settable by a sibling host) is not read');
});

t.test('an https issuer with a path: still Path=/, which __Host- requires', async (t) => {
  const names = { session: '__Host-oauth_session', csrf: '__Host-oauth_csrf' };
  const { login, posted } = await signIn(t, 'https://as.example.com/tenant-a', '/tenant-a/oauth2/', names);
  t.same(setCookies(login.headers), ['__Host-oauth_csrf=<value>; Path=/; HttpOnly; Secure; SameSite=Lax']);
  t.same(setCookies(posted.headers), ['__Host-oauth_session=<value>; Max-Age=3600; Path=/; HttpOnly; Secure; SameSite=Lax']);
});

t.test("an http issuer (local development): plain names, not Secure, the issuer's path (its /oauth2/ pages and /device)", async (t) => {
  const names = { session: 'oauth_session', csrf: 'oauth_csrf' };
  const { login, posted } = await signIn(t, 'http://localhost:3000', '/oauth2/', names);
  t.same(setCookies(login.headers), ['oauth_csrf=<value>; Path=/; HttpOnly; SameSite=Lax']);
  t.same(setCookies(posted.headers), ['oauth_session=<value>; Max-Age=3600; Path=/; HttpOnly; SameSite=Lax']);
  const prefixed = await signIn(t, 'http://localhost:3000/tenant-a', '/tenant-a/oauth2/', names);
  t.same(setCookies(prefixed.login.headers), ['oauth_csrf=<value>; Path=/tenant-a/; HttpOnly; SameSite=Lax']);
});

t.test('sign-out empties the session cookie under the same name and scope', async (t) => {
  for (const [issuer, expected] of [
    ['https://as.example.com', '__Host-oauth_session=; Max-Age=0; Path=/; HttpOnly; Secure; SameSite=Lax'],
    ['http://localhost:3000', 'oauth_session=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax'],
  ] as const) {
    const secure = issuer.startsWith('https:');
    const names = secure
      ? { session: '__Host-oauth_session', csrf: '__Host-oauth_csrf' }
      : { session: 'oauth_session', csrf: 'oauth_csrf' };
    const { app, csrf, session } = await signIn(t, issuer, '/oauth2/', names);
    const cookie = `${names.csrf}=${csrf}; ${names.session}=${session}`;
    const page = await app.inject({ method: 'GET', url: '/oauth2/logout', headers: { cookie } });
    const out = await app.inject({
      method: 'POST',
      url: formAction(page.body),
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
      payload: new URLSearchParams(formFields(page.body)).toString(),
    });
    t.equal(out.statusCode, 200, issuer);
    t.same(setCookies(out.headers), [expected], issuer);
  }
});

import t, { type Test } from 'tap';
import { ALICE, AUTHORIZE_CLIENTS, testUsers, WEB_REDIRECT } from '../helpers/authorize-fixtures.js';
import { authorizeUrl, formAction, formFields, InjectBrowser, signInAndDecide } from '../helpers/browser-flow.js';
import { buildTestServer, SESSION_COOKIE } from '../helpers/server.js';

/** GET/POST /oauth2/logout: a confirmed, CSRF-safe sign-out, and "Not you?" on the login and consent pages. */

const AFTER_LOGOUT = 'https://app.example.com/signed-out';
const CLIENTS = AUTHORIZE_CLIENTS.map((c) => (c.client_id === 'web' ? { ...c, post_logout_redirect_uris: [AFTER_LOGOUT] } : c));
const REQUEST = { response_type: 'code', client_id: 'web', redirect_uri: WEB_REDIRECT, scope: 'read', state: 'st-1' };

async function signedIn(t: Test) {
  const server = await buildTestServer(t, { clients: CLIENTS, users: testUsers() });
  const browser = new InjectBrowser(server.app);
  t.equal((await signInAndDecide(browser, REQUEST, ALICE)).statusCode, 303, 'signed in and approved');
  return { ...server, browser };
}

const logoutUrl = (params: Record<string, string>) => `/oauth2/logout?${new URLSearchParams(params).toString()}`;
const sessionCleared = (res: { cookies: unknown }) =>
  (res.cookies as { name: string; value: string; maxAge?: number }[]).some(
    (c) => c.name === SESSION_COOKIE && c.value === '' && c.maxAge === 0,
  );

t.test('GET /oauth2/logout with a session asks first; it signs nobody out', async (t) => {
  const { browser } = await signedIn(t);
  const res = await browser.get(logoutUrl({ client_id: 'web', post_logout_redirect_uri: AFTER_LOGOUT, state: 'bye' }));
  t.equal(res.statusCode, 200);
  t.match(res.headers, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'x-frame-options': 'DENY' });
  t.match(res.headers['content-security-policy'], "form-action 'self' https://app.example.com", 'the redirect after the form is allowed');
  t.match(res.body, '<h1>Sign out?</h1>');
  t.match(res.body, '<strong>Example &#60;Web&#62; App</strong> asks you to sign out.');
  t.match(res.body, 'Signed in as <strong>user-alice</strong>.');
  t.equal(formAction(res.body), '/oauth2/logout');
  t.same(Object.keys(formFields(res.body)).sort(), ['csrf_token', 'logout']);
  t.notOk(sessionCleared(res), 'the GET changes nothing');
  t.match((await browser.get(authorizeUrl(REQUEST))).headers.location, /code=/, 'still signed in');
});

t.test('POST of the confirmation ends the session and goes to the registered URI with state (303)', async (t) => {
  const { browser } = await signedIn(t);
  const page = await browser.get(logoutUrl({ client_id: 'web', post_logout_redirect_uri: AFTER_LOGOUT, state: 'bye' }));
  const res = await browser.post(formAction(page.body), formFields(page.body));
  t.equal(res.statusCode, 303);
  t.equal(res.headers.location, `${AFTER_LOGOUT}?state=bye`);
  t.equal(res.headers['cache-control'], 'no-store');
  t.ok(sessionCleared(res), 'the session cookie is emptied and expires');
  const after = await browser.get(authorizeUrl(REQUEST));
  t.equal(after.statusCode, 200);
  t.match(after.body, '<h1>Sign in</h1>', 'signed out');
});

t.test('without a redirect URI: the "you are signed out" page', async (t) => {
  const { browser } = await signedIn(t);
  const page = await browser.get('/oauth2/logout');
  t.notMatch(page.body, 'asks you to sign out');
  const res = await browser.post(formAction(page.body), formFields(page.body));
  t.equal(res.statusCode, 200);
  t.match(res.body, '<h1>You are signed out</h1>');
  t.ok(sessionCleared(res));
});

t.test('nobody signed in: nothing to ask; the registered URI, or the page', async (t) => {
  const { app } = await buildTestServer(t, { clients: CLIENTS, users: testUsers() });
  const browser = new InjectBrowser(app);
  const redirected = await browser.get(logoutUrl({ client_id: 'web', post_logout_redirect_uri: AFTER_LOGOUT, state: 's' }));
  t.equal(redirected.statusCode, 302);
  t.equal(redirected.headers.location, `${AFTER_LOGOUT}?state=s`);
  const page = await browser.get(logoutUrl({ client_id: 'web' }));
  t.equal(page.statusCode, 200);
  t.match(page.body, '<h1>You are signed out</h1>');
});

t.test('a POST without the CSRF token, or with an altered form, signs nobody out', async (t) => {
  const { browser } = await signedIn(t);
  const page = await browser.get(logoutUrl({ client_id: 'web', post_logout_redirect_uri: AFTER_LOGOUT }));
  const fields = formFields(page.body);
  const crossSite = await browser.post('/oauth2/logout', { logout: fields.logout as string });
  t.equal(crossSite.statusCode, 403);
  t.match(crossSite.body, 'this form was not sent from this site');
  t.notOk(sessionCleared(crossSite));
  const altered = await browser.post('/oauth2/logout', { ...fields, logout: `${fields.logout}x` });
  t.equal(altered.statusCode, 400);
  t.match(altered.body, 'this sign-out form has expired or was altered');
  t.notOk(sessionCleared(altered));
  t.match((await browser.get(authorizeUrl(REQUEST))).headers.location, /code=/, 'still signed in');
});

t.test('a redirect URI that is not registered exactly is refused with a page, never followed', async (t) => {
  const { browser } = await signedIn(t);
  const cases: [Record<string, string>, string][] = [
    [{ client_id: 'web', post_logout_redirect_uri: 'https://evil.example/' }, 'post_logout_redirect_uri is not registered for this client'],
    [{ client_id: 'web', post_logout_redirect_uri: `${AFTER_LOGOUT}/` }, 'post_logout_redirect_uri is not registered for this client'],
    [{ client_id: 'single', post_logout_redirect_uri: AFTER_LOGOUT }, 'post_logout_redirect_uri is not registered for this client'],
    [{ post_logout_redirect_uri: AFTER_LOGOUT }, 'post_logout_redirect_uri needs id_token_hint or client_id'],
    [{ client_id: 'nobody' }, 'the client is not registered'],
  ];
  for (const [params, description] of cases) {
    const res = await browser.get(logoutUrl(params));
    t.equal(res.statusCode, 400, JSON.stringify(params));
    t.equal(res.headers.location, undefined);
    t.match(res.body, 'You were not redirected back to it, for your safety.');
    t.match(res.body, description);
  }
  const repeated = await browser.get(`/oauth2/logout?client_id=web&client_id=single`);
  t.equal(repeated.statusCode, 400);
  t.match(repeated.body, 'parameter &#39;client_id&#39; is repeated');
});

t.test('"Not you?" on the consent page signs out and returns to the same authorization request', async (t) => {
  const { app } = await buildTestServer(t, { clients: CLIENTS, users: testUsers() });
  const browser = new InjectBrowser(app);
  const login = await browser.get(authorizeUrl(REQUEST));
  const afterLogin = await browser.post(formAction(login.body), { ...formFields(login.body), ...ALICE });
  const consent = await browser.get(afterLogin.headers.location as string);
  t.match(consent.body, 'Signed in as <strong>user-alice</strong>. <button class="link" type="submit">Not you?</button>');
  const notYou = /<form class="signed-in" method="post" action="([^"]+)">/.exec(consent.body)?.[1];
  t.equal(notYou, '/oauth2/logout');
  const res = await browser.post(notYou as string, formFields(consent.body));
  t.equal(res.statusCode, 303);
  t.equal(res.headers.location, authorizeUrl(REQUEST), 'the same request again');
  t.ok(sessionCleared(res));
  const again = await browser.get(res.headers.location as string);
  t.match(again.body, '<h1>Sign in</h1>');
  t.notMatch(again.body, 'Not you?', 'nobody is signed in now');
});

t.test('logout answers only GET and POST', async (t) => {
  const { app } = await buildTestServer(t, { clients: CLIENTS, users: testUsers() });
  const res = await app.inject({ method: 'PUT', url: '/oauth2/logout' });
  t.equal(res.statusCode, 405);
  t.match(res.headers.allow, /GET/);
});

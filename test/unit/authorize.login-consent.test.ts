import { createLocalJWKSet, jwtVerify } from 'jose';
import t, { type Test } from 'tap';
import { StoreUnavailableError } from '../../src/errors/index.js';
import { ALICE, AUTHORIZE_CLIENTS, testUsers, WEB_REDIRECT } from '../helpers/authorize-fixtures.js';
import { authorizeUrl, formAction, formFields, InjectBrowser, pkcePair, redirectParams, signInAndDecide } from '../helpers/browser-flow.js';
import { buildTestServer, CSRF_COOKIE, ISSUER, SESSION_COOKIE } from '../helpers/server.js';
import { memoryStore } from '../helpers/stores.js';

const CODE_REQUEST = { response_type: 'code', client_id: 'web', redirect_uri: WEB_REDIRECT, scope: 'read write', state: 'st-1' };

async function server(t: Test, options: Parameters<typeof buildTestServer>[1] = {}) {
  return buildTestServer(t, { clients: AUTHORIZE_CLIENTS, users: testUsers(), ...options });
}

t.test('the login page', async (t) => {
  const { app } = await server(t);
  const browser = new InjectBrowser(app);
  const res = await browser.get(authorizeUrl(CODE_REQUEST));
  t.equal(res.statusCode, 200);
  t.match(res.headers, {
    'content-type': 'text/html; charset=utf-8',
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-store',
  });
  const csp = res.headers['content-security-policy'] as string;
  t.match(csp, "default-src 'none'");
  t.match(csp, "frame-ancestors 'none'");
  t.match(csp, "form-action 'self'");
  t.notMatch(res.body, /(src|href)="https?:/, 'no external resources');
  t.match(res.body, 'Example &#60;Web&#62; App', 'the client name, escaped');
  t.match(res.body, '<label for="username">Username</label>');
  t.match(res.body, '<label for="password">Password</label>');
  t.match(res.body, '<meta name="viewport" content="width=device-width, initial-scale=1">');
  t.equal(formAction(res.body), '/oauth2/authorize/login');
  t.same(Object.keys(formFields(res.body)).sort(), ['csrf_token', 'interaction']);
  const csrf = (res.cookies as { name: string; httpOnly?: boolean; sameSite?: string; secure?: boolean; path?: string }[]).find(
    (c) => c.name === CSRF_COOKIE,
  );
  t.match(csrf, { httpOnly: true, sameSite: 'Lax', secure: true, path: '/' });
});

t.test('signing in', async (t) => {
  t.test('a wrong password or unknown user shows the form again with one generic message', async (t) => {
    const { app } = await server(t);
    const browser = new InjectBrowser(app);
    const login = await browser.get(authorizeUrl(CODE_REQUEST));
    for (const credentials of [
      { username: 'alice', password: 'nope' },
      { username: 'mallory', password: 'nope' },
    ]) {
      const res = await browser.post(formAction(login.body), { ...formFields(login.body), ...credentials });
      t.equal(res.statusCode, 200);
      t.match(res.body, '<p class="error" role="alert">Incorrect username or password.</p>');
      t.equal(browser.cookie(SESSION_COOKIE), undefined, 'no session');
    }
  });

  t.test('success sets a signed session cookie and returns to the request with 303', async (t) => {
    const { app } = await server(t);
    const browser = new InjectBrowser(app);
    const login = await browser.get(authorizeUrl(CODE_REQUEST));
    const res = await browser.post(formAction(login.body), { ...formFields(login.body), ...ALICE });
    t.equal(res.statusCode, 303);
    t.match(
      res.headers.location,
      new RegExp(`^${escapeRegExp(authorizeUrl(CODE_REQUEST))}&signed_in=[\\w-]{43}$`),
      'the same request, marked as signed in for it',
    );
    const session = (res.cookies as { name: string; httpOnly?: boolean; sameSite?: string; secure?: boolean }[]).find(
      (c) => c.name === SESSION_COOKIE,
    );
    t.match(session, { httpOnly: true, sameSite: 'Lax', secure: true });
    const consent = await browser.get(res.headers.location as string);
    t.equal(consent.statusCode, 200);
    t.match(consent.body, '<h1>Allow access?</h1>');
    t.match(consent.body, '<li><code>read</code></li><li><code>write</code></li>');
    t.match(consent.body, 'Signed in as <strong>user-alice</strong>');
    t.match(consent.headers['content-security-policy'], "form-action 'self' https://app.example.com");
  });

  t.test('forms without a valid CSRF token are refused with 403', async (t) => {
    const { app } = await server(t);
    const browser = new InjectBrowser(app);
    const login = await browser.get(authorizeUrl(CODE_REQUEST));
    const fields = formFields(login.body);
    const forged = await browser.post(formAction(login.body), { ...fields, csrf_token: 'forged', ...ALICE });
    t.equal(forged.statusCode, 403);
    t.equal(browser.cookie(SESSION_COOKIE), undefined);
    const otherBrowser = new InjectBrowser(app);
    const replayed = await otherBrowser.post(formAction(login.body), { ...fields, ...ALICE });
    t.equal(replayed.statusCode, 403, 'a token from another browser does not fit its cookie');
  });

  t.test('an altered or expired interaction is refused', async (t) => {
    const { app, clock } = await server(t);
    const browser = new InjectBrowser(app);
    const login = await browser.get(authorizeUrl(CODE_REQUEST));
    const fields = formFields(login.body);
    const altered = await browser.post(formAction(login.body), { ...fields, interaction: `${fields.interaction}x`, ...ALICE });
    t.equal(altered.statusCode, 400);
    t.match(altered.body, 'this form has expired or was altered');
    clock.now += 901_000;
    const expired = await browser.post(formAction(login.body), { ...fields, ...ALICE });
    t.equal(expired.statusCode, 400);
  });

  t.test('repeated failures per username are refused for a while, across browsers', async (t) => {
    const { app, clock } = await server(t, { env: { LOGIN_MAX_FAILURES: '3', LOGIN_FAILURE_WINDOW: '600' } });
    for (let i = 0; i < 3; i += 1) {
      const browser = new InjectBrowser(app, `198.51.100.${i}`);
      const login = await browser.get(authorizeUrl(CODE_REQUEST));
      await browser.post(formAction(login.body), { ...formFields(login.body), username: 'alice', password: `wrong-${i}` });
    }
    const browser = new InjectBrowser(app, '198.51.100.99');
    const login = await browser.get(authorizeUrl(CODE_REQUEST));
    const blocked = await browser.post(formAction(login.body), { ...formFields(login.body), ...ALICE });
    t.equal(blocked.statusCode, 429, 'even the right password is refused');
    t.equal(blocked.headers['retry-after'], '600');
    t.match(blocked.body, 'Too many failed sign-in attempts. Try again in 10 minutes.');
    t.equal(browser.cookie(SESSION_COOKIE), undefined);
    clock.now += 601_000;
    const again = await browser.get(authorizeUrl(CODE_REQUEST));
    const allowed = await browser.post(formAction(again.body), { ...formFields(again.body), ...ALICE });
    t.equal(allowed.statusCode, 303, 'allowed again after the window');
  });

  t.test('repeated failures from one address are refused', async (t) => {
    const { app } = await server(t, { env: { LOGIN_MAX_FAILURES_PER_IP: '2' } });
    const browser = new InjectBrowser(app, '192.0.2.50');
    const login = await browser.get(authorizeUrl(CODE_REQUEST));
    for (const username of ['u1', 'u2']) await browser.post(formAction(login.body), { ...formFields(login.body), username, password: 'x' });
    const blocked = await browser.post(formAction(login.body), { ...formFields(login.body), ...ALICE });
    t.equal(blocked.statusCode, 429);
  });
});

t.test('consent and the authorization response', async (t) => {
  const jwksOf = async (app: Awaited<ReturnType<typeof server>>['app']) =>
    createLocalJWKSet((await app.inject({ url: '/.well-known/jwks.json' })).json());

  t.test('Deny sends access_denied to the client with 303', async (t) => {
    const { app } = await server(t);
    const res = await signInAndDecide(new InjectBrowser(app), CODE_REQUEST, ALICE, 'deny');
    t.equal(res.statusCode, 303);
    t.same(redirectParams(res.headers.location as string), {
      error: 'access_denied',
      error_description: 'the user denied the request',
      state: 'st-1',
      iss: ISSUER,
    });
  });

  t.test('Allow sends code, state and iss in the query', async (t) => {
    const { app } = await server(t);
    const res = await signInAndDecide(new InjectBrowser(app), CODE_REQUEST, ALICE);
    t.equal(res.statusCode, 303);
    t.ok((res.headers.location as string).startsWith(`${WEB_REDIRECT}?code=`));
    const params = redirectParams(res.headers.location as string);
    t.same(Object.keys(params), ['code', 'state', 'iss']);
    t.match(params.code, /^[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}$/, '256-bit secret part');
    t.equal(params.state, 'st-1');
    t.equal(params.iss, ISSUER);
  });

  t.test('response_mode=fragment and AUTHORIZE_CODE_RESPONSE_MODE=fragment put the code in the fragment', async (t) => {
    const { app } = await server(t);
    const asked = await signInAndDecide(new InjectBrowser(app), { ...CODE_REQUEST, response_mode: 'fragment' }, ALICE);
    t.ok((asked.headers.location as string).startsWith(`${WEB_REDIRECT}#code=`));
    t.same(Object.keys(redirectParams(asked.headers.location as string, 'fragment')), ['code', 'state', 'iss']);
    const configured = await server(t, { env: { AUTHORIZE_CODE_RESPONSE_MODE: 'fragment' } });
    const res = await signInAndDecide(new InjectBrowser(configured.app), CODE_REQUEST, ALICE);
    t.ok((res.headers.location as string).startsWith(`${WEB_REDIRECT}#code=`));
  });

  t.test('response_mode=form_post answers with an auto-submitting form', async (t) => {
    const { app } = await server(t);
    const res = await signInAndDecide(new InjectBrowser(app), { ...CODE_REQUEST, response_mode: 'form_post' }, ALICE);
    t.equal(res.statusCode, 200);
    t.equal(formAction(res.body), WEB_REDIRECT);
    t.same(Object.keys(formFields(res.body)), ['code', 'state', 'iss']);
    t.match(res.body, '<script>document.forms[0].submit()</script>');
  });

  t.test('response_type=token returns an access token in the fragment, never a refresh token', async (t) => {
    const { app, clock } = await server(t);
    const res = await signInAndDecide(
      new InjectBrowser(app),
      { response_type: 'token', client_id: 'spa', scope: 'profile', state: 'imp' },
      ALICE,
    );
    t.equal(res.statusCode, 303);
    const location = res.headers.location as string;
    t.ok(location.startsWith('https://spa.example.com/cb#access_token='));
    const params = redirectParams(location, 'fragment');
    t.same(Object.keys(params), ['access_token', 'token_type', 'expires_in', 'scope', 'state', 'iss']);
    t.match(params, { token_type: 'bearer', expires_in: '3600', scope: 'profile', state: 'imp', iss: ISSUER });
    const { payload } = await jwtVerify(params.access_token as string, await jwksOf(app), {
      issuer: ISSUER,
      typ: 'at+jwt',
      currentDate: new Date(clock.now),
    });
    t.match(payload, { sub: 'user-alice', client_id: 'spa', scope: 'profile' });
    t.type(payload.auth_time, 'number');
  });

  t.test('a consent form posted after the session ended goes back to sign-in', async (t) => {
    const { app } = await server(t);
    const browser = new InjectBrowser(app);
    const login = await browser.get(authorizeUrl(CODE_REQUEST));
    const afterLogin = await browser.post(formAction(login.body), { ...formFields(login.body), ...ALICE });
    const consent = await browser.get(afterLogin.headers.location as string);
    browser.forget(SESSION_COOKIE);
    const res = await browser.post(formAction(consent.body), { ...formFields(consent.body), decision: 'allow' });
    t.equal(res.statusCode, 303);
    t.equal(res.headers.location, authorizeUrl(CODE_REQUEST));
  });

  t.test('consent without a valid CSRF token issues no code', async (t) => {
    const { app } = await server(t);
    const browser = new InjectBrowser(app);
    const login = await browser.get(authorizeUrl(CODE_REQUEST));
    const afterLogin = await browser.post(formAction(login.body), { ...formFields(login.body), ...ALICE });
    const consent = await browser.get(afterLogin.headers.location as string);
    const res = await browser.post(formAction(consent.body), { ...formFields(consent.body), csrf_token: 'x', decision: 'allow' });
    t.equal(res.statusCode, 403);
    t.equal(res.headers.location, undefined);
  });

  t.test('store down: temporarily_unavailable to the client, no code', async (t) => {
    const down = await memoryStore(t);
    down.store.saveAuthorizationCode = async () => {
      throw new StoreUnavailableError('redis down');
    };
    const { app } = await server(t, { store: down });
    const { challenge } = pkcePair();
    const res = await signInAndDecide(
      new InjectBrowser(app),
      { ...CODE_REQUEST, code_challenge: challenge, code_challenge_method: 'S256' },
      ALICE,
    );
    t.equal(res.statusCode, 303);
    t.same(redirectParams(res.headers.location as string), {
      error: 'temporarily_unavailable',
      error_description: 'the authorization server is temporarily unavailable, try again later',
      state: 'st-1',
      iss: ISSUER,
    });
  });

  t.test('POST /oauth2/authorize with a form body works like GET (RFC 6749 §3.1)', async (t) => {
    const { app } = await server(t);
    const browser = new InjectBrowser(app);
    const res = await browser.post('/oauth2/authorize', CODE_REQUEST);
    t.equal(res.statusCode, 200);
    t.match(res.body, '<h1>Sign in</h1>');
    const error = await browser.post('/oauth2/authorize', { ...CODE_REQUEST, scope: 'nope' });
    t.equal(error.statusCode, 303, 'a redirect after a POST is 303');
  });
});

function escapeRegExp(value: string): string {
  return value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

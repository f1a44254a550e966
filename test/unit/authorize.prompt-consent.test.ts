import t, { type Test } from 'tap';
import { StoreUnavailableError } from '../../src/errors/index.js';
import { ALICE, AUTHORIZE_CLIENTS, testUsers, WEB_REDIRECT } from '../helpers/authorize-fixtures.js';
import { authorizeUrl, formAction, formFields, InjectBrowser, redirectParams, signInAndDecide } from '../helpers/browser-flow.js';
import { buildTestServer, ISSUER, SESSION_COOKIE } from '../helpers/server.js';
import { memoryStore } from '../helpers/stores.js';
import { rememberedConsentSuite } from '../suites/remembered-consent.js';

/** Remembered consent, first-party clients (skip_consent), prompt and max_age at the authorization endpoint. */

const CLIENTS = [
  ...AUTHORIZE_CLIENTS,
  {
    client_id: 'first-party',
    client_secret_hash: AUTHORIZE_CLIENTS[0]?.client_secret_hash,
    redirect_uris: ['https://portal.example.com/cb'],
    grant_types: ['authorization_code'],
    scope: 'read write',
    skip_consent: true,
  },
];
const RESOURCES = [{ resource: 'https://api.example.com/', scope: 'read write' }];

const REQUEST = { response_type: 'code', client_id: 'web', redirect_uri: WEB_REDIRECT, scope: 'read write', state: 'st-1' };
const FIRST_PARTY = { response_type: 'code', client_id: 'first-party', redirect_uri: 'https://portal.example.com/cb', state: 'fp' };

async function server(t: Test, env: Record<string, string> = {}) {
  return buildTestServer(t, { clients: CLIENTS, users: testUsers(), resources: RESOURCES, env });
}

/** The final answer of a browser with a session: a redirect to the client, or a page. */
const isCodeRedirect = (res: { statusCode: number; headers: Record<string, unknown> }, redirect = WEB_REDIRECT) =>
  res.statusCode === 302 && (res.headers.location as string).startsWith(`${redirect}?code=`);

/** Signs in and allows `params`, leaving the browser with a session and the consent remembered. */
async function approved(t: Test, browser: InjectBrowser, params: Record<string, string>, resources: string[] = []) {
  const res = await signInAndDecide(browser, params, ALICE, 'allow', resources);
  t.equal(res.statusCode, 303, 'approved on the consent page');
}

t.test('remembered consent (CONSENT_TTL)', async (t) => {
  t.test('the same request, or one for less, skips the consent page: the code at once, with 302', async (t) => {
    const { app } = await server(t);
    const browser = new InjectBrowser(app);
    await approved(t, browser, REQUEST);
    const again = await browser.get(authorizeUrl({ ...REQUEST, state: 'st-2' }));
    t.ok(isCodeRedirect(again), 'no page');
    t.same(Object.keys(redirectParams(again.headers.location as string)), ['code', 'state', 'iss']);
    t.equal(redirectParams(again.headers.location as string).state, 'st-2');
    t.equal(again.headers['cache-control'], 'no-store');
    const subset = await browser.get(authorizeUrl({ ...REQUEST, scope: 'read' }));
    t.ok(isCodeRedirect(subset), 'a subset of the scope');
  });

  t.test('more scope, or a resource not approved, asks again', async (t) => {
    const { app } = await server(t);
    const browser = new InjectBrowser(app);
    await approved(t, browser, { ...REQUEST, scope: 'read' });
    const more = await browser.get(authorizeUrl(REQUEST));
    t.equal(more.statusCode, 200);
    t.match(more.body, '<h1>Allow access?</h1>');
    const resource = await browser.get(authorizeUrl({ ...REQUEST, scope: 'read' }, ['https://api.example.com/']));
    t.equal(resource.statusCode, 200);
    t.match(resource.body, '<h1>Allow access?</h1>');
  });

  t.test('a resource approved once is remembered with its scope', async (t) => {
    const { app } = await server(t);
    const browser = new InjectBrowser(app);
    await approved(t, browser, REQUEST, ['https://api.example.com/']);
    t.ok(isCodeRedirect(await browser.get(authorizeUrl({ ...REQUEST, scope: 'read' }, ['https://api.example.com/']))));
  });

  t.test('another user, or another client, is asked', async (t) => {
    const { app } = await server(t);
    await approved(t, new InjectBrowser(app), REQUEST);
    const bob = await signInAndDecide(new InjectBrowser(app), REQUEST, { username: 'bob', password: 'bob-password-1' }, 'deny');
    t.equal(redirectParams(bob.headers.location as string).error, 'access_denied', 'bob saw the page and denied');
  });

  t.test('consent expires after CONSENT_TTL', async (t) => {
    const { app, clock } = await server(t, { CONSENT_TTL: '60', SESSION_TTL: '3600' });
    const browser = new InjectBrowser(app);
    await approved(t, browser, REQUEST);
    clock.now += 59_000;
    t.ok(isCodeRedirect(await browser.get(authorizeUrl(REQUEST))));
    clock.now += 2_000;
    const expired = await browser.get(authorizeUrl(REQUEST));
    t.equal(expired.statusCode, 200);
    t.match(expired.body, '<h1>Allow access?</h1>');
  });

  t.test('CONSENT_TTL=0 remembers nothing', async (t) => {
    const { app, store } = await server(t, { CONSENT_TTL: '0' });
    const browser = new InjectBrowser(app);
    await approved(t, browser, REQUEST);
    t.equal(await store.consents.findConsent('user-alice', 'web'), undefined);
    t.match((await browser.get(authorizeUrl(REQUEST))).body, '<h1>Allow access?</h1>');
  });

  t.test('a denial remembers nothing', async (t) => {
    const { app, store } = await server(t);
    await signInAndDecide(new InjectBrowser(app), REQUEST, ALICE, 'deny');
    t.equal(await store.consents.findConsent('user-alice', 'web'), undefined);
  });

  t.test('the store failing while reading consent: temporarily_unavailable at the client, no code', async (t) => {
    const { app, store } = await server(t);
    const browser = new InjectBrowser(app);
    await approved(t, browser, REQUEST);
    store.consents.findConsent = async () => {
      throw new StoreUnavailableError('down');
    };
    const res = await browser.get(authorizeUrl(REQUEST));
    t.equal(res.statusCode, 302);
    t.same(redirectParams(res.headers.location as string), {
      error: 'temporarily_unavailable',
      error_description: 'the authorization server is temporarily unavailable, try again later',
      state: 'st-1',
      iss: ISSUER,
    });
  });
});

t.test('first-party clients ("skip_consent": true) never show the consent page', async (t) => {
  const { app } = await server(t);
  const browser = new InjectBrowser(app);
  const login = await browser.get(authorizeUrl(FIRST_PARTY));
  const afterLogin = await browser.post(formAction(login.body), { ...formFields(login.body), ...ALICE });
  const res = await browser.get(afterLogin.headers.location as string);
  t.ok(isCodeRedirect(res, 'https://portal.example.com/cb'), 'signed in: the code, no consent page');
  const asked = await browser.get(authorizeUrl({ ...FIRST_PARTY, prompt: 'consent' }));
  t.equal(asked.statusCode, 200, 'unless the client itself asks with prompt=consent');
  t.match(asked.body, '<h1>Allow access?</h1>');
});

t.test('prompt=consent asks again even when consent is remembered', async (t) => {
  const { app } = await server(t);
  const browser = new InjectBrowser(app);
  await approved(t, browser, REQUEST);
  const res = await browser.get(authorizeUrl({ ...REQUEST, prompt: 'consent' }));
  t.equal(res.statusCode, 200);
  t.match(res.body, '<h1>Allow access?</h1>');
});

t.test('prompt=none: no page; login_required or consent_required at the client (OIDC Core §3.1.2.6)', async (t) => {
  const errorAt = (location: unknown) => redirectParams(location as string);

  t.test('without a session: login_required', async (t) => {
    const { app } = await server(t);
    const res = await new InjectBrowser(app).get(authorizeUrl({ ...REQUEST, prompt: 'none' }));
    t.equal(res.statusCode, 302);
    t.same(errorAt(res.headers.location), {
      error: 'login_required',
      error_description: 'the user is not signed in',
      state: 'st-1',
      iss: ISSUER,
    });
  });

  t.test('signed in, never approved: consent_required', async (t) => {
    const { app } = await server(t);
    const browser = new InjectBrowser(app);
    await approved(t, browser, { ...REQUEST, scope: 'read' });
    const res = await browser.get(authorizeUrl({ ...REQUEST, prompt: 'none' }));
    t.equal(res.statusCode, 302);
    t.same(errorAt(res.headers.location), {
      error: 'consent_required',
      error_description: 'the user has not approved this access for this client',
      state: 'st-1',
      iss: ISSUER,
    });
  });

  t.test('signed in and approved before: the code', async (t) => {
    const { app } = await server(t);
    const browser = new InjectBrowser(app);
    await approved(t, browser, REQUEST);
    t.ok(isCodeRedirect(await browser.get(authorizeUrl({ ...REQUEST, prompt: 'none' }))));
  });

  t.test('signed in longer ago than max_age: login_required', async (t) => {
    const { app, clock } = await server(t);
    const browser = new InjectBrowser(app);
    await approved(t, browser, REQUEST);
    clock.now += 120_000;
    const res = await browser.get(authorizeUrl({ ...REQUEST, prompt: 'none', max_age: '60' }));
    t.same(errorAt(res.headers.location), {
      error: 'login_required',
      error_description: 'the user signed in longer ago than max_age',
      state: 'st-1',
      iss: ISSUER,
    });
  });

  t.test('response_mode=fragment: the error in the fragment', async (t) => {
    const { app } = await server(t);
    const res = await new InjectBrowser(app).get(authorizeUrl({ ...REQUEST, prompt: 'none', response_mode: 'fragment' }));
    t.equal(redirectParams(res.headers.location as string, 'fragment').error, 'login_required');
  });
});

t.test('prompt=login and max_age: sign in again, once', async (t) => {
  t.test('prompt=login with a session shows the login page, who is signed in, and "Not you?"', async (t) => {
    const { app } = await server(t);
    const browser = new InjectBrowser(app);
    await approved(t, browser, REQUEST);
    const page = await browser.get(authorizeUrl({ ...REQUEST, prompt: 'login' }));
    t.equal(page.statusCode, 200);
    t.match(page.body, '<h1>Sign in</h1>');
    t.match(page.body, '<p>This application asks you to sign in again.</p>');
    t.match(page.body, /<form class="signed-in" method="post" action="\/oauth2\/logout">/);
    t.match(page.body, 'Signed in as <strong>user-alice</strong>. <button class="link" type="submit">Not you?</button>');
    t.equal(formAction(page.body), '/oauth2/authorize/login', 'the sign-in form comes first');
    const signedIn = await browser.post(formAction(page.body), { ...formFields(page.body), ...ALICE });
    t.equal(signedIn.statusCode, 303);
    const res = await browser.get(signedIn.headers.location as string);
    t.ok(isCodeRedirect(res), 'the new sign-in satisfies prompt=login (and consent is remembered): no loop');
  });

  t.test('max_age=0 always signs in again; that sign-in satisfies it', async (t) => {
    const { app } = await server(t);
    const browser = new InjectBrowser(app);
    await approved(t, browser, REQUEST);
    const page = await browser.get(authorizeUrl({ ...REQUEST, max_age: '0' }));
    t.match(page.body, '<h1>Sign in</h1>');
    const signedIn = await browser.post(formAction(page.body), { ...formFields(page.body), ...ALICE });
    t.ok(isCodeRedirect(await browser.get(signedIn.headers.location as string)));
  });

  t.test('max_age: a recent sign-in will do, an older one not', async (t) => {
    const { app, clock } = await server(t);
    const browser = new InjectBrowser(app);
    await approved(t, browser, REQUEST);
    clock.now += 100_000;
    t.ok(isCodeRedirect(await browser.get(authorizeUrl({ ...REQUEST, max_age: '300' }))));
    t.match((await browser.get(authorizeUrl({ ...REQUEST, max_age: '60' }))).body, '<h1>Sign in</h1>');
  });

  t.test("the sign-in mark of one request does not satisfy another's prompt=login", async (t) => {
    const { app } = await server(t);
    const browser = new InjectBrowser(app);
    const login = await browser.get(authorizeUrl({ ...REQUEST, prompt: 'login' }));
    const signedIn = await browser.post(formAction(login.body), { ...formFields(login.body), ...ALICE });
    const mark = new URL(signedIn.headers.location as string, ISSUER).searchParams.get('signed_in') as string;
    const other = await browser.get(authorizeUrl({ ...REQUEST, prompt: 'login', state: 'other', signed_in: mark }));
    t.match(other.body, '<h1>Sign in</h1>', 'bound to the request it was made for');
    const forged = await browser.get(authorizeUrl({ ...REQUEST, prompt: 'login', signed_in: `${mark}x` }));
    t.match(forged.body, '<h1>Sign in</h1>');
    t.notMatch(forged.body, 'signed_in', 'the mark is not carried into the forms');
  });

  t.test('the sign-in mark carries no readable subject, and a tampered or late one is refused', async (t) => {
    const { app, clock } = await server(t);
    const browser = new InjectBrowser(app);
    const request = { ...REQUEST, prompt: 'login' };
    const login = await browser.get(authorizeUrl(request));
    const signedIn = await browser.post(formAction(login.body), { ...formFields(login.body), ...ALICE });
    const location = signedIn.headers.location as string;
    const mark = new URL(location, ISSUER).searchParams.get('signed_in') as string;
    t.match(mark, /^[A-Za-z0-9_-]{43}$/, 'a MAC, nothing else');
    const sub = 'user-alice';
    t.notMatch(location, sub);
    for (const offset of [0, 1, 2]) {
      // The characters base64url gives the sub alone when it starts `offset` bytes into an encoded value (a JSON).
      const bits = [8 * offset, 8 * (offset + sub.length)] as const;
      const encoded = Buffer.from(`${'{'.repeat(offset)}${sub}`).toString('base64url');
      const fragment = encoded.slice(Math.ceil(bits[0] / 6), Math.floor(bits[1] / 6));
      t.notMatch(location, fragment, `no base64url of the sub (alignment ${offset}: ${fragment})`);
    }
    for (const part of mark.split('.')) t.notMatch(Buffer.from(part, 'base64url').toString('latin1'), sub, 'no encoded JSON holding it');
    const flipped = `${mark.slice(0, 10)}${mark[10] === 'A' ? 'B' : 'A'}${mark.slice(11)}`;
    t.match((await browser.get(authorizeUrl({ ...request, signed_in: flipped }))).body, '<h1>Sign in</h1>', 'a tampered mark');
    t.match((await browser.get(authorizeUrl({ ...request, signed_in: '' }))).body, '<h1>Sign in</h1>', 'an empty mark');
    const consent = await browser.get(location);
    t.match(consent.body, '<h1>Allow access?</h1>', 'the mark satisfies prompt=login: the flow goes on');
    clock.now += 300_000;
    t.match((await browser.get(location)).body, '<h1>Sign in</h1>', 'not 5 minutes after the sign-in');
  });

  t.test('a sign-in mark without a session is no session', async (t) => {
    const { app } = await server(t);
    const browser = new InjectBrowser(app);
    const login = await browser.get(authorizeUrl(REQUEST));
    const signedIn = await browser.post(formAction(login.body), { ...formFields(login.body), ...ALICE });
    browser.forget(SESSION_COOKIE);
    t.match((await browser.get(signedIn.headers.location as string)).body, '<h1>Sign in</h1>');
  });
});

t.test('bad prompt and max_age values: invalid_request at the client', async (t) => {
  const { app } = await server(t);
  const cases: [Record<string, string>, string][] = [
    [{ prompt: 'select_account' }, "prompt value 'select_account' is not supported: use none, login or consent"],
    [{ prompt: 'login Consent' }, "prompt value 'Consent' is not supported: use none, login or consent"],
    [{ prompt: 'none login' }, 'prompt=none cannot be combined with other values'],
    [{ prompt: 'consent none' }, 'prompt=none cannot be combined with other values'],
    [{ max_age: '-1' }, 'max_age must be a whole number of seconds'],
    [{ max_age: '1.5' }, 'max_age must be a whole number of seconds'],
    [{ max_age: 'soon' }, 'max_age must be a whole number of seconds'],
  ];
  for (const [extra, description] of cases) {
    const res = await new InjectBrowser(app).get(authorizeUrl({ ...REQUEST, ...extra }));
    t.equal(res.statusCode, 302, JSON.stringify(extra));
    t.same(redirectParams(res.headers.location as string), {
      error: 'invalid_request',
      error_description: description,
      state: 'st-1',
      iss: ISSUER,
    });
  }
  const both = await new InjectBrowser(app).get(authorizeUrl({ ...REQUEST, prompt: 'login consent' }));
  t.equal(both.statusCode, 200, 'login and consent together are fine');
});

t.test('grants from the authorization endpoint are indexed under the user and the client', async (t) => {
  const { app, store, clock } = await server(t);
  const browser = new InjectBrowser(app);
  const implicit = await signInAndDecide(browser, { response_type: 'token', client_id: 'spa', scope: 'read', state: 'i' }, ALICE);
  const token = redirectParams(implicit.headers.location as string, 'fragment').access_token as string;
  const claims = JSON.parse(Buffer.from(token.split('.')[1] as string, 'base64url').toString()) as { grant_id: string };
  t.match(claims.grant_id, /^[A-Za-z0-9_-]{22}$/, 'an implicit access token carries a grant id, so it can be revoked by grant');
  const code = await signInAndDecide(new InjectBrowser(app), REQUEST, ALICE);
  const grantId = (redirectParams(code.headers.location as string).code as string).split('.')[0];
  t.same(
    (await store.grantIndex.listGrants({ sub: 'user-alice' })).map((g) => [g.grantId, g.clientId, g.expiresAt - clock.now]).sort(),
    [
      [claims.grant_id, 'spa', 3_600_000],
      [grantId, 'web', 3_660_000 + 2_592_000_000],
    ].sort(),
    'implicit: the access token lifetime; code (a client with refresh tokens): the code, the family it may start and its last access token',
  );
});

rememberedConsentSuite(t, 'memory store', memoryStore);

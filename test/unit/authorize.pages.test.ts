import { createHash } from 'node:crypto';
import t, { type Test } from 'tap';
import { ClientRegistry } from '../../src/clients/registry.js';
import { ALICE, AUTHORIZE_CLIENTS, testUsers, WEB_REDIRECT } from '../helpers/authorize-fixtures.js';
import { authorizeUrl, formAction, formFields, InjectBrowser } from '../helpers/browser-flow.js';
import { buildTestServer } from '../helpers/server.js';

/** `web`, with a home page and a logo of its own. */
const CLIENTS = AUTHORIZE_CLIENTS.map((c) =>
  c.client_id === 'web' ? { ...c, client_uri: 'https://app.example.com/', logo_uri: 'https://static.app.example.com/logo.png' } : c,
);
const API = 'https://api.example.com/';
const RESOURCES = [
  {
    resource: API,
    name: 'Example API',
    scope: 'read write',
    scope_descriptions: { read: { en: 'Read your data', de: 'Ihre Daten lesen' } },
  },
];
const REQUEST = { response_type: 'code', client_id: 'web', redirect_uri: WEB_REDIRECT, scope: 'read write', state: 's' };
const BRAND = { BRAND_NAME: 'Example <Corp>', BRAND_LOGO_URL: 'https://cdn.example.com/brand/logo.svg', BRAND_PRIMARY_COLOR: '#FFD700' };

async function server(t: Test, env: Record<string, string> = {}) {
  return buildTestServer(t, { clients: CLIENTS, users: testUsers(), resources: RESOURCES, env });
}

function sha256(text: string): string {
  return `'sha256-${createHash('sha256').update(text).digest('base64')}'`;
}

function cspOf(res: { headers: Record<string, unknown> }): Map<string, string> {
  const csp = res.headers['content-security-policy'] as string;
  return new Map(csp.split('; ').map((d) => [d.slice(0, d.indexOf(' ')), d.slice(d.indexOf(' ') + 1)]));
}

async function consentPage(browser: InjectBrowser, request: Record<string, string> = REQUEST) {
  const login = await browser.get(authorizeUrl(request));
  const signedIn = await browser.post(formAction(login.body), { ...formFields(login.body), ...ALICE });
  return browser.get(signedIn.headers.location as string);
}

t.test('branding: the operator name and logo on every page, the primary colour with a readable text colour', async (t) => {
  const { app } = await server(t, BRAND);
  const login = await new InjectBrowser(app).get(authorizeUrl(REQUEST));
  t.match(
    login.body,
    '<header class="brand"><img src="https://cdn.example.com/brand/logo.svg" alt=""><span>Example &#60;Corp&#62;</span></header>',
    'the name beside the logo, escaped; the logo is then decoration',
  );
  t.match(login.body, '<title>Sign in – Example &#60;Corp&#62;</title>');
  t.match(login.body, '--brand:#ffd700;--on-brand:#000000', 'gold fails AA with white text: black');
  const csp = cspOf(login);
  t.equal(csp.get('img-src'), 'https://cdn.example.com https://static.app.example.com', "the logos' origins, nothing else");
  const style = /<style>([\s\S]*?)<\/style>/.exec(login.body)?.[1] as string;
  t.equal(csp.get('style-src'), sha256(style), 'the one inline style, by hash');

  const notFound = await app.inject({ url: '/oauth2/authorize/nothing' });
  t.match(notFound.body, '<header class="brand">', 'error pages too');

  const { app: blue } = await server(t, { BRAND_PRIMARY_COLOR: '#0b57d0' });
  t.match((await new InjectBrowser(blue).get(authorizeUrl(REQUEST))).body, '--brand:#0b57d0;--on-brand:#ffffff');

  const { app: logoOnly } = await server(t, { BRAND_LOGO_URL: 'https://cdn.example.com/brand/logo.svg' });
  t.match(
    (await logoOnly.inject({ url: '/oauth2/authorize/nothing' })).body,
    '<header class="brand"><img src="https://cdn.example.com/brand/logo.svg" alt="Logo"></header>',
    'a logo alone names the operator',
  );
});

t.test('without branding: no header, no image source allowed', async (t) => {
  const { app } = await buildTestServer(t, { clients: AUTHORIZE_CLIENTS, users: testUsers() });
  const login = await new InjectBrowser(app).get(authorizeUrl(REQUEST));
  t.notMatch(login.body, '<header');
  t.notMatch(login.body, '<img');
  t.equal(cspOf(login).get('img-src'), undefined);
  t.match(login.body, '<title>Sign in</title>');
});

t.test('the show-password toggle: a hashed script, and a plain password field without it', async (t) => {
  const { app } = await server(t);
  const login = await new InjectBrowser(app).get(authorizeUrl(REQUEST));
  t.match(login.body, '<input id="password" name="password" type="password" autocomplete="current-password" required>');
  t.match(
    login.body,
    '<div class="reveal" id="reveal-password" hidden><input type="checkbox" id="show-password"><label for="show-password">Show password</label></div>',
    'hidden until the script shows it',
  );
  const scripts = [...login.body.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1] as string);
  t.equal(scripts.length, 1);
  t.equal(cspOf(login).get('script-src'), sha256(scripts[0] as string), 'allowed by its hash alone: no unsafe-inline, no nonce');
  t.match(scripts[0], "password.type=event.target.checked?'text':'password'");
});

t.test('the consent page: client logo and name, where the user goes back, scope descriptions', async (t) => {
  const { app } = await server(t);
  const consent = await consentPage(new InjectBrowser(app));
  t.equal(consent.statusCode, 200);
  t.match(
    consent.body,
    '<div class="client"><img src="https://static.app.example.com/logo.png" alt="" width="48" height="48"><p><strong>Example &#60;Web&#62; App</strong> asks for access to your account</p></div>',
  );
  t.match(consent.body, '<p>If you allow, you go back to <strong class="host">app.example.com</strong></p>', 'for a registered client too');
  t.match(
    consent.body,
    '<ul><li><strong>Read your data</strong> <span class="muted"><code>read</code></span></li><li><code>write</code></li></ul>',
    'a described scope by its description and name; an undescribed one by its name',
  );
  t.equal(cspOf(consent).get('img-src'), 'https://static.app.example.com');
});

t.test('languages: Accept-Language chooses German, q-values honoured; English by default', async (t) => {
  const { app } = await server(t);
  const german = new InjectBrowser(app, '203.0.113.7', { 'accept-language': 'fr;q=0.9, de-CH, en;q=0.5' });
  const login = await german.get(authorizeUrl(REQUEST));
  t.equal(login.headers.vary, 'Accept-Language');
  t.match(login.body, '<html lang="de">');
  t.match(login.body, '<h1>Anmelden</h1>');
  t.match(login.body, '<label for="username">Benutzername</label>');
  t.match(login.body, '<label for="show-password">Passwort anzeigen</label>');
  const wrong = await german.post(formAction(login.body), { ...formFields(login.body), username: 'alice', password: 'nope' });
  t.match(wrong.body, '<p class="error" role="alert">Benutzername oder Passwort ist falsch.</p>');

  const consent = await consentPage(german);
  t.match(consent.body, '<h1>Zugriff erlauben?</h1>');
  t.match(consent.body, '<strong>Ihre Daten lesen</strong>', 'the description in German');
  t.match(consent.body, '<button class="primary" type="submit" name="decision" value="allow">Erlauben</button>');

  const refused = await app.inject({ url: authorizeUrl({ ...REQUEST, client_id: 'nobody' }), headers: { 'accept-language': 'de' } });
  t.match(refused.body, '<h1>Ungültige Autorisierungsanfrage</h1>');
  t.match(refused.body, '<p class="error" role="alert" lang="en">the client is not registered</p>', 'our English detail, marked so');

  for (const header of [undefined, 'de;q=0, en', 'ja, fr-CA']) {
    const res = await app.inject({ url: authorizeUrl(REQUEST), headers: header === undefined ? {} : { 'accept-language': header } });
    t.match(res.body, '<html lang="en">', String(header));
    t.equal(res.headers.vary, 'Accept-Language');
  }
});

t.test('identity scopes on the consent page: what each shares, in words, in English and in German', async (t) => {
  const { app } = await server(t);
  const request = { ...REQUEST, scope: 'openid profile email address phone offline_access' };
  // The catalogue's wording (src/pages/messages/en.ts, de.ts), written out: a changed word fails here.
  const wording = {
    en: [
      'Know who you are: your user identifier at this service',
      'Your profile: name, username, picture, language and time zone',
      'Your email address, and whether it is verified',
      'Your postal address',
      'Your phone number, and whether it is verified',
      'Keep access while you are not using it',
    ],
    de: [
      'Wissen, wer Sie sind: Ihre Benutzerkennung bei diesem Dienst',
      'Ihr Profil: Name, Benutzername, Bild, Sprache und Zeitzone',
      'Ihre E-Mail-Adresse und ob sie bestätigt ist',
      'Ihre Postanschrift',
      'Ihre Telefonnummer und ob sie bestätigt ist',
      'Zugriff behalten, während Sie die Anwendung nicht benutzen',
    ],
  };
  for (const [language, descriptions] of Object.entries(wording)) {
    const consent = await consentPage(new InjectBrowser(app, '203.0.113.7', { 'accept-language': language }), request);
    t.equal(consent.statusCode, 200, language);
    t.match(consent.body, `<html lang="${language}">`);
    const items = request.scope
      .split(' ')
      .map((scope, i) => `<li><strong>${descriptions[i]}</strong> <span class="muted"><code>${scope}</code></span></li>`);
    t.match(consent.body, `<ul>${items.join('')}</ul>`, `${language}: each scope by its description and name, in the order asked`);
  }
});

t.test('a step-up consent page in German: the new permissions, and those already shared', async (t) => {
  const { app, store } = await server(t);
  const german = new InjectBrowser(app, '203.0.113.7', { 'accept-language': 'de' });
  await store.consents.rememberConsent('user-alice', 'web', { scope: ['read'], audiences: ['https://as.example.com'] }, 600);
  const consent = await consentPage(german);
  t.match(consent.body, '<strong>Example &#60;Web&#62; App</strong> bittet um weiteren Zugriff auf Ihr Konto</p>');
  t.match(consent.body, '<p>mit diesen neuen Berechtigungen:</p>\n<ul><li><code>write</code></li></ul>');
  t.match(
    consent.body,
    '<p class="muted">Bereits für <strong>Example &#60;Web&#62; App</strong> freigegeben:</p>\n<ul class="shared muted"><li><strong>Ihre Daten lesen</strong> <span class="muted"><code>read</code></span></li></ul>',
  );
});

t.test('error pages: the error code, the request id, and a way back', async (t) => {
  const { app } = await server(t);
  const mismatch = await app.inject({ url: authorizeUrl({ ...REQUEST, redirect_uri: 'https://evil.example/cb' }) });
  t.equal(mismatch.statusCode, 400);
  const reference = mismatch.headers['x-request-id'] as string;
  t.match(
    mismatch.body,
    `<dl class="muted"><dt>Error code</dt><dd><code>invalid_request</code></dd><dt>Reference</dt><dd><code>${reference}</code></dd></dl>`,
  );
  t.match(
    mismatch.body,
    '<p><a href="https://app.example.com/" rel="noreferrer">Back to Example &#60;Web&#62; App</a></p>',
    "the registered client's home page, never the redirect URI sent",
  );
  t.notMatch(mismatch.body, 'evil.example');

  const given = await app.inject({ url: authorizeUrl({ ...REQUEST, client_id: 'nobody' }), headers: { 'x-request-id': 'support-42' } });
  t.match(given.body, '<dd><code>support-42</code></dd>');
  t.match(given.body, '<p>You can close this window and return to the application.</p>', 'an unknown client: no link');
  t.notMatch(given.body, '<a ');

  const noHome = await app.inject({ url: authorizeUrl({ ...REQUEST, client_id: 'single', redirect_uri: 'https://evil.example/cb' }) });
  t.match(noHome.body, 'You can close this window', 'a client without client_uri');

  // A refused form (403): the client comes from the signed request the form carries.
  const browser = new InjectBrowser(app);
  const login = await browser.get(authorizeUrl(REQUEST));
  const forged = await browser.post(formAction(login.body), { ...formFields(login.body), csrf_token: 'forged', ...ALICE });
  t.equal(forged.statusCode, 403);
  t.match(forged.body, '<h1>Form refused</h1>');
  t.match(forged.body, '<dd><code>invalid_request</code></dd>');
  t.match(forged.body, 'Back to Example &#60;Web&#62; App</a>');

  const notFound = await app.inject({ url: '/oauth2/authorize/nothing', headers: { 'x-request-id': 'support-43' } });
  t.equal(notFound.statusCode, 404);
  t.match(notFound.body, '<dd><code>not_found</code></dd><dt>Reference</dt><dd><code>support-43</code></dd>');
});

t.test('clients file: logo_uri and client_uri are https (http only on this computer)', async (t) => {
  const base = { client_id: 'c', redirect_uris: ['https://c.example/cb'], token_endpoint_auth_method: 'none' };
  t.match(ClientRegistry.fromMetadata([{ ...base, logo_uri: 'http://localhost:8080/l.png', client_uri: 'https://c.example/' }]).get('c'), {
    logoUri: 'http://localhost:8080/l.png',
    clientUri: 'https://c.example/',
  });
  const message = 'must be an absolute https URL (http only on localhost, for development), without fragment';
  for (const [field, value] of [
    ['logo_uri', 'http://c.example/l.png'],
    ['logo_uri', 'javascript:alert(1)'],
    ['client_uri', 'data:text/html,hi'],
    ['client_uri', 'https://c.example/#top'],
  ] as const) {
    t.throws(
      () => ClientRegistry.fromMetadata([{ ...base, [field]: value }]),
      { message: `clients: client "c": ${field}: ${message}` },
      value,
    );
  }
});

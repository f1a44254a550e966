import t from 'tap';
import { hashClientSecret } from '../../src/clients/secret.js';
import { ALICE } from '../helpers/authorize-fixtures.js';
import { formAction, formFields, InjectBrowser } from '../helpers/browser-flow.js';
import { DEVICE_CLIENTS, DEVICE_GRANT, decideInBrowser, deviceServer, pathOf, startDevice, tv } from '../helpers/device-flow.js';
import { SESSION_COOKIE } from '../helpers/server.js';
import { memoryStore } from '../helpers/stores.js';

/**
 * /device, the verification URI (RFC 8628 §3.3): the code page, the limits on wrong codes
 * (§5.1), the confirmation of a code filled in by verification_uri_complete (§3.3.1), the
 * sign-in and consent steps it shares with the authorization endpoint, the warning against
 * remote phishing (§5.4), and the pages after the decision.
 */

const main = (body: string) => body.slice(body.indexOf('<main>'), body.indexOf('</main>') + 7);
const WARNING = 'Only continue if you started this sign-in yourself on a device you own; never enter a code someone sent you.';
const WRONG = 'This code is wrong, has expired or was already used. Check the code on your device.';

/** Posts `userCode` from the code page, as the browser would. */
async function enter(browser: InjectBrowser, userCode: string) {
  const page = await browser.get('/device');
  return browser.post(formAction(page.body), { ...formFields(page.body), user_code: userCode });
}

t.test('GET /device: the form to type the code, with the pages’ headers and CSP', async (t) => {
  const { app } = await deviceServer(t);
  const res = await new InjectBrowser(app).get('/device');
  t.equal(res.statusCode, 200);
  t.match(
    res.headers['content-security-policy'],
    /^default-src 'none'; style-src 'sha256-[^']+'; script-src 'none'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'$/,
  );
  t.same([res.headers['cache-control'], res.headers['x-frame-options']], ['no-store', 'DENY']);
  const csrf = formFields(res.body).csrf_token as string;
  t.equal(
    main(res.body),
    `<main>
<h1>Connect a device</h1>
<p class="muted">Enter the code your device shows.</p>

<form method="post" action="/device">
<input type="hidden" name="csrf_token" value="${csrf}">
<label for="user_code">Code</label>
<input id="user_code" name="user_code" type="text" class="code" autocomplete="off" autocapitalize="characters" spellcheck="false" required value="" autofocus>
<div class="actions"><button class="primary" type="submit">Continue</button></div>
</form>
</main>`,
  );
});

t.test('verification_uri_complete fills the code in, and the user still confirms it (§3.3.1), even signed in', async (t) => {
  const { app } = await deviceServer(t);
  const started = await startDevice(tv(app));
  const browser = new InjectBrowser(app);
  await decideInBrowser(browser, (await startDevice(tv(app))).user_code);
  t.ok(browser.cookie(SESSION_COOKIE), 'signed in');
  const page = await browser.get(pathOf(started.verification_uri_complete.replace(started.user_code, started.user_code.toLowerCase())));
  t.equal(page.statusCode, 200);
  t.match(page.body, '<p>Check that this is the code your device shows, then continue.</p>');
  t.match(page.body, `required value="${started.user_code}">`, 'the code as the device shows it');
  t.match(page.body, '<button class="primary" type="submit" autofocus>Continue</button>');
  const marked = await browser.get(`/device?user_code=${started.user_code}&signed_in=not-a-mark`);
  t.match(marked.body, '<h1>Connect a device</h1>', 'a mark that is not this session’s sign-in for this code skips nothing');
  const confirmed = await browser.post(formAction(page.body), { ...formFields(page.body), user_code: started.user_code });
  t.match(confirmed.body, '<h1>Allow access?</h1>');
});

t.test('a code typed in lower case, with or without the dash or spaces, is found', async (t) => {
  const { app } = await deviceServer(t);
  for (const form of [
    (c: string) => c.toLowerCase(),
    (c: string) => c.replace('-', ''),
    (c: string) => ` ${c.slice(0, 4)} ${c.slice(5)} `,
  ]) {
    const { user_code } = await startDevice(tv(app));
    const browser = new InjectBrowser(app);
    const res = await enter(browser, form(user_code));
    t.match(res.body, '<h1>Sign in</h1>', form(user_code));
  }
});

t.test('a wrong code never tells whether it exists: malformed, unknown, decided, expired read the same', async (t) => {
  const { app, advance } = await deviceServer(t);
  const decided = await startDevice(tv(app));
  await decideInBrowser(new InjectBrowser(app), decided.user_code, 'deny');
  const expired = await startDevice(tv(app));
  await advance(600);
  const answers = new Set<string>();
  for (const code of ['AEIO-UAEI', 'BCDF-GHJ', 'BCDF-GHJK', decided.user_code, expired.user_code]) {
    const res = await enter(new InjectBrowser(app, '198.51.100.1'), code);
    t.equal(res.statusCode, 200, code);
    t.match(res.body, `<p class="error" role="alert">${WRONG}</p>`);
    answers.add(main(res.body).replace(/value="[^"]*"/g, ''));
  }
  t.equal(answers.size, 1, 'one and the same page');
});

t.test(
  '§5.1: DEVICE_USER_CODE_MAX_FAILURES wrong codes a minute per address, then 429, a right code too; a right code does not count',
  async (t) => {
    const { app, advance } = await deviceServer(t, memoryStore, { env: { DEVICE_USER_CODE_MAX_FAILURES: '2' } });
    const { user_code } = await startDevice(tv(app));
    const browser = new InjectBrowser(app, '198.51.100.2');
    t.match((await enter(browser, user_code)).body, '<h1>Sign in</h1>');
    t.match((await enter(browser, user_code)).body, '<h1>Sign in</h1>', 'right codes are given back');
    for (let i = 0; i < 2; i++) t.equal((await enter(browser, 'BBBB-BBBB')).statusCode, 200);
    const refused = await enter(browser, user_code);
    t.equal(refused.statusCode, 429);
    t.equal(refused.headers['retry-after'], '60');
    t.match(refused.body, '<p class="error" role="alert">Too many wrong codes. Try again in 1 minute.</p>');
    t.match((await enter(new InjectBrowser(app, '198.51.100.3'), user_code)).body, '<h1>Sign in</h1>', 'per address');
    await advance(60);
    t.match((await enter(browser, user_code)).body, '<h1>Sign in</h1>', 'the next minute');
  },
);

t.test('§5.1: and a hundred times that in all, whatever the address', async (t) => {
  const { app } = await deviceServer(t, memoryStore, { env: { DEVICE_USER_CODE_MAX_FAILURES: '1' } });
  const { user_code } = await startDevice(tv(app));
  for (let i = 0; i < 100; i++) t.equal((await enter(new InjectBrowser(app, `203.0.113.${i + 1}`), 'BBBB-BBBB')).statusCode, 200);
  const refused = await enter(new InjectBrowser(app, '192.0.2.200'), user_code);
  t.equal(refused.statusCode, 429);
});

t.test('POST /device without the page’s CSRF token: 403, nothing looked up', async (t) => {
  const { app } = await deviceServer(t);
  const { user_code } = await startDevice(tv(app));
  const res = await new InjectBrowser(app).post('/device', { user_code });
  t.equal(res.statusCode, 403);
  t.match(res.body, '<h1>Form refused</h1>');
});

t.test('sign in, then the consent page of a device: its code and the warning, no redirect (§5.4)', async (t) => {
  const { app } = await deviceServer(t);
  const { user_code } = await startDevice(tv(app), { scope: 'openid read' });
  const browser = new InjectBrowser(app);
  const login = await enter(browser, user_code);
  t.match(login.body, '<p class="muted">to continue to <strong>Living-room TV</strong></p>');
  const signedIn = await browser.post(formAction(login.body), { ...formFields(login.body), ...ALICE });
  t.equal(signedIn.statusCode, 303);
  t.match(signedIn.headers.location, new RegExp(`^/device\\?user_code=${user_code.replace('-', '')}&signed_in=[A-Za-z0-9_-]{43}$`));
  const consent = await browser.get(signedIn.headers.location as string);
  t.equal(consent.statusCode, 200);
  t.match(consent.headers['content-security-policy'], "form-action 'self';", 'the forms go nowhere else');
  const body = main(consent.body);
  t.match(body, '<p><strong>Living-room TV</strong> asks for access to your account from a device</p>');
  t.match(body, `<p>Code on the device: <strong class="host"><code>${user_code}</code></strong></p>\n<p class="error">${WARNING}</p>`);
  t.notMatch(body, 'If you allow, you go back to');
  t.match(body, '<code>openid</code>');
});

t.test('the consent page is never skipped for a device: not for a skip_consent client, nor a remembered consent', async (t) => {
  const clients = [...DEVICE_CLIENTS.filter((c) => c.client_id !== 'tv'), { ...DEVICE_CLIENTS.at(-2), skip_consent: true }];
  const { app } = await deviceServer(t, memoryStore, { clients });
  const browser = new InjectBrowser(app);
  for (let i = 0; i < 2; i++) {
    const { user_code } = await startDevice(tv(app));
    const page = await decideInBrowser(browser, user_code);
    t.match(page.body, '<h1>Device connected</h1>', 'approved on the consent page');
    const again = await enter(browser, (await startDevice(tv(app))).user_code);
    t.match(again.body, '<h1>Allow access?</h1>', 'asked again');
  }
});

t.test('the pages in German', async (t) => {
  const { app } = await deviceServer(t);
  const { user_code } = await startDevice(tv(app));
  const browser = new InjectBrowser(app, '203.0.113.9', { 'accept-language': 'de' });
  t.match((await browser.get('/device')).body, '<h1>Gerät verbinden</h1>');
  const page = await decideInBrowser(browser, user_code, 'deny');
  t.match(page.body, '<h1>Zugriff verweigert</h1>');
  const other = await startDevice(tv(app));
  const consent = await enter(browser, other.user_code);
  t.match(
    consent.body,
    '<p class="error">Fahren Sie nur fort, wenn Sie diese Anmeldung selbst auf einem eigenen Gerät begonnen haben; geben Sie nie einen Code ein, den Ihnen jemand geschickt hat.</p>',
  );
});

t.test('after the decision: approved, denied, or already decided in another window', async (t) => {
  const { app } = await deviceServer(t);
  const { user_code } = await startDevice(tv(app));
  const browser = new InjectBrowser(app);
  await decideInBrowser(browser, (await startDevice(tv(app))).user_code);
  const consent = await enter(browser, user_code);
  const fields = { ...formFields(consent.body), decision: 'allow' };
  const approved = await browser.post(formAction(consent.body), fields);
  t.equal(
    main(approved.body),
    `<main>
<h1>Device connected</h1>
<p><strong>Living-room TV</strong> has access now. Return to your device: it continues by itself.</p>
</main>`,
  );
  const twice = await browser.post(formAction(consent.body), fields);
  t.equal(twice.statusCode, 400);
  t.match(twice.body, '<h1>Code no longer valid</h1>');
  const denied = await decideInBrowser(browser, (await startDevice(tv(app))).user_code, 'deny');
  t.match(main(denied.body), '<h1>Access denied</h1>\n<p>The device was not given access. You can close this window.</p>');
});

t.test('“Not you?” signs out and comes back to the code, to confirm again', async (t) => {
  const { app } = await deviceServer(t);
  const browser = new InjectBrowser(app);
  await decideInBrowser(browser, (await startDevice(tv(app))).user_code);
  const { user_code } = await startDevice(tv(app));
  const consent = await enter(browser, user_code);
  const signOut = consent.body.slice(consent.body.indexOf('<form class="signed-in"'));
  const res = await browser.post('/oauth2/logout', formFields(signOut));
  t.equal(res.statusCode, 303);
  t.equal(res.headers.location, `/device?user_code=${user_code.replace('-', '')}`);
  const page = await browser.get(res.headers.location as string);
  t.match(page.body, `value="${user_code}">`);
  t.match(page.body, 'Check that this is the code your device shows');
});

t.test("the client's default_max_age asks an older session to sign in again (the prompt rules)", async (t) => {
  const strict = {
    client_id: 'strict',
    client_secret_hash: hashClientSecret('strict-secret-0123456789abcdefghijklmnop'),
    grant_types: [DEVICE_GRANT],
    default_max_age: 60,
  };
  const { app, advance } = await deviceServer(t, memoryStore, { clients: [...DEVICE_CLIENTS, strict] });
  const browser = new InjectBrowser(app);
  await decideInBrowser(browser, (await startDevice(tv(app))).user_code);
  await advance(61);
  const { TokenClient } = await import('../helpers/token-client.js');
  const { user_code } = await startDevice(new TokenClient(app, 'strict', 'strict-secret-0123456789abcdefghijklmnop'), {}, []);
  const page = await enter(browser, user_code);
  t.match(page.body, '<h1>Sign in</h1>');
  t.match(page.body, '<p>This application asks you to sign in again.</p>');
});

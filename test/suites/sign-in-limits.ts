import type { LightMyRequestResponse } from 'fastify';
import type { Test } from 'tap';
import { hashClientSecret } from '../../src/clients/secret.js';
import type { UserRegistry } from '../../src/users/registry.js';
import { ALICE, AUTHORIZE_CLIENTS, testUsers, WEB_REDIRECT, WEB_SECRET } from '../helpers/authorize-fixtures.js';
import { authorizeUrl, formAction, formFields, InjectBrowser } from '../helpers/browser-flow.js';
import { expectOAuthError } from '../helpers/oauth-error.js';
import { buildTestServer, SESSION_COOKIE } from '../helpers/server.js';
import { CountingAuthenticator, until } from '../helpers/sign-in.js';
import type { OpenStore, TestStore } from '../helpers/stores.js';
import { TokenClient } from '../helpers/token-client.js';
import { warmPasswordThreads } from '../helpers/passwords.js';

const CLIENTS = [
  ...AUTHORIZE_CLIENTS,
  { client_id: 'first-party', client_secret_hash: hashClientSecret(WEB_SECRET), grant_types: ['password'], scope: 'read' },
  { client_id: 'cli', grant_types: ['password'], scope: 'read', token_endpoint_auth_method: 'none' },
];
const CODE_REQUEST = { response_type: 'code', client_id: 'web', redirect_uri: WEB_REDIRECT, scope: 'read', state: 'st-1' };
/** Limits the tests below do not exercise stay out of the way. */
const ROOMY = { PASSWORD_VERIFY_QUEUE: '1000' };
/** LOGIN_MAX_FAILURES (5) checks running together, none waiting for a slot. */
const FIVE_CHECKS_AT_ONCE = { PASSWORD_VERIFY_CONCURRENCY: '5' };

/** A server whose password checks are counted; `passwordGrant` and `loginForm` sign in through either endpoint. */
export async function setup(t: Test, options: { env?: Record<string, string>; store?: TestStore; users?: UserRegistry } = {}) {
  const { users, counting } = CountingAuthenticator.around(options.users ?? testUsers());
  const server = await buildTestServer(t, {
    clients: CLIENTS,
    users,
    env: { ...ROOMY, ...options.env },
    ...(options.store ? { store: options.store } : {}),
  });
  const passwordGrant = (username: string, password: string, ip: string, client = 'first-party') =>
    new TokenClient(server.app, client, client === 'cli' ? null : WEB_SECRET, ip).token({ grant_type: 'password', username, password });
  /** Opens the login page in a fresh browser at `ip` (sending `headers` too); `submit` posts the credentials. */
  const loginForm = async (ip: string, headers: Record<string, string> = {}) => {
    const browser = new InjectBrowser(server.app, ip, headers);
    const page = await browser.get(authorizeUrl(CODE_REQUEST));
    return {
      browser,
      submit: (username: string, password: string) => browser.post(formAction(page.body), { ...formFields(page.body), username, password }),
    };
  };
  return { ...server, counting, passwordGrant, loginForm };
}

export const statuses = (responses: readonly LightMyRequestResponse[]) =>
  responses.reduce<Record<number, number>>((counts, { statusCode }) => {
    counts[statusCode] = (counts[statusCode] ?? 0) + 1;
    return counts;
  }, {});

/** The limits through both endpoints, on one store kind. */
export function endpointLimitsSuite(t: Test, name: string, open: OpenStore): void {
  t.before(warmPasswordThreads);
  t.test(`${name}: POST /oauth2/token grant_type=password, 60 concurrent wrong passwords`, async (t) => {
    const { passwordGrant, counting } = await setup(t, { store: await open(t) });
    const responses = await Promise.all(Array.from({ length: 60 }, (_, i) => passwordGrant('alice', `wrong-${i}`, `198.51.100.${i}`)));
    t.equal(counting.verifications, 5, 'exactly LOGIN_MAX_FAILURES passwords checked');
    t.same(statuses(responses), { 400: 5, 429: 55 });
    t.same(responses.find((r) => r.statusCode === 400)?.json(), {
      error: 'invalid_grant',
      error_description: 'invalid username or password',
    });
    const refused = responses.find((r) => r.statusCode === 429) as LightMyRequestResponse;
    expectOAuthError(t, refused, {
      status: 429,
      error: 'invalid_grant',
      description: 'too many failed attempts: retry after 900 seconds',
      headers: { 'retry-after': '900' },
    });
    t.equal((await passwordGrant(ALICE.username, ALICE.password, '192.0.2.1')).statusCode, 429, 'the right password afterwards too');
    t.equal(counting.verifications, 5);
  });

  t.test(`${name}: the login form, 60 concurrent wrong passwords`, async (t) => {
    const { loginForm, counting } = await setup(t, { store: await open(t) });
    const forms = await Promise.all(Array.from({ length: 60 }, (_, i) => loginForm(`198.51.100.${i}`)));
    const responses = await Promise.all(forms.map((form, i) => form.submit('alice', `wrong-${i}`)));
    t.equal(counting.verifications, 5);
    t.same(statuses(responses), { 200: 5, 429: 55 });
    t.match(responses.find((r) => r.statusCode === 200)?.body, '<p class="error" role="alert">Incorrect username or password.</p>');
    const refused = responses.find((r) => r.statusCode === 429) as LightMyRequestResponse;
    t.equal(refused.headers['retry-after'], '900');
    t.match(refused.body, '<p class="error" role="alert">Too many failed sign-in attempts. Try again in 15 minutes.</p>');
    t.ok(
      forms.every((form) => form.browser.cookie(SESSION_COOKIE) === undefined),
      'no session anywhere',
    );
  });

  t.test(`${name}: POST /oauth2/token grant_type=password, six parallel sign-ins of one service account: six tokens`, async (t) => {
    const { passwordGrant, counting } = await setup(t, { store: await open(t), env: FIVE_CHECKS_AT_ONCE });
    counting.hold();
    const burst = Array.from({ length: 6 }, () => passwordGrant(ALICE.username, ALICE.password, '192.0.2.1'));
    await until(() => counting.verifications === 5, 'LOGIN_MAX_FAILURES checks in flight');
    counting.release();
    t.same(statuses(await Promise.all(burst)), { 200: 6 }, 'the sixth waited for a check to finish');
    t.equal(counting.verifications, 6);
  });

  t.test(`${name}: while five checks for one user stay in flight, a further attempt is told so: 429, Retry-After: 1`, async (t) => {
    const { passwordGrant, loginForm, counting } = await setup(t, { store: await open(t), env: FIVE_CHECKS_AT_ONCE });
    const [english, german] = await Promise.all([loginForm('192.0.2.2'), loginForm('192.0.2.3', { 'accept-language': 'de' })]);
    counting.hold();
    const inFlight = Array.from({ length: 5 }, (_, i) => passwordGrant('alice', `wrong-${i}`, `198.51.100.${i}`));
    await until(() => counting.verifications === 5, 'five checks in flight');
    const [token, page, seite] = await Promise.all([
      passwordGrant(ALICE.username, ALICE.password, '192.0.2.1'),
      english!.submit(ALICE.username, ALICE.password),
      german!.submit(ALICE.username, ALICE.password),
    ]);
    expectOAuthError(t, token, {
      status: 429,
      error: 'temporarily_unavailable',
      description: 'sign-in attempts for this username or address are still being checked: retry after 1 second',
      headers: { 'retry-after': '1' },
    });
    t.equal(page.statusCode, 429);
    t.equal(page.headers['retry-after'], '1');
    t.match(page.body, '<p class="error" role="alert">Other sign-in attempts are still being checked. Please try again in a moment.</p>');
    t.match(page.body, 'value="alice"', 'the username is kept');
    t.equal(seite.statusCode, 429);
    t.match(
      seite.body,
      '<p class="error" role="alert">Andere Anmeldeversuche werden gerade noch geprüft. Bitte versuchen Sie es gleich noch einmal.</p>',
    );
    counting.release();
    t.same(statuses(await Promise.all(inFlight)), { 400: 5 });
    expectOAuthError(t, await passwordGrant(ALICE.username, ALICE.password, '192.0.2.1'), {
      status: 429,
      error: 'invalid_grant',
      description: 'too many failed attempts: retry after 900 seconds',
      headers: { 'retry-after': '900' },
    });
    t.equal(counting.verifications, 5, 'no password checked past the limit');
  });

  t.test(`${name}: the login form and the password grant count on the same counters`, async (t) => {
    const { loginForm, passwordGrant, counting } = await setup(t, {
      store: await open(t),
      env: { LOGIN_MAX_FAILURES: '4', LOGIN_MAX_FAILURES_PER_IP: '3' },
    });
    for (const i of [1, 2]) t.equal((await (await loginForm(`198.51.100.${i}`)).submit('alice', 'wrong')).statusCode, 200);
    for (const i of [3, 4]) t.equal((await passwordGrant('alice', 'wrong', `198.51.100.${i}`)).statusCode, 400);
    t.equal((await passwordGrant(ALICE.username, ALICE.password, '198.51.100.5')).statusCode, 429, 'per username, across endpoints');
    t.equal((await (await loginForm('198.51.100.6')).submit(ALICE.username, ALICE.password)).statusCode, 429);

    t.equal((await (await loginForm('192.0.2.9')).submit('u1', 'x')).statusCode, 200);
    t.equal((await passwordGrant('u2', 'x', '192.0.2.9')).statusCode, 400);
    t.equal((await passwordGrant('u3', 'x', '192.0.2.9', 'cli')).statusCode, 400);
    t.equal((await passwordGrant('bob', 'x', '192.0.2.9')).statusCode, 429, 'per address, across endpoints and clients');
    t.equal((await (await loginForm('192.0.2.9')).submit('bob', 'x')).statusCode, 429);
    t.equal(counting.verifications, 7);
  });
}

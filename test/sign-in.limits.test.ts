import t, { type Test } from 'tap';
import type { LightMyRequestResponse } from 'fastify';
import { hashClientSecret } from '../src/clients/secret.js';
import type { Store } from '../src/store/types.js';
import type { UserRegistry } from '../src/users/registry.js';
import { ALICE, AUTHORIZE_CLIENTS, testUsers, WEB_REDIRECT, WEB_SECRET } from './helpers/authorize-fixtures.js';
import { authorizeUrl, formAction, formFields, InjectBrowser, redirectParams } from './helpers/browser-flow.js';
import { openRedisStore, startPrivateRedis } from './helpers/redis.js';
import { buildTestServer, ISSUER, NO_STORE_JSON } from './helpers/server.js';
import { cheapUsers, CountingAuthenticator, until } from './helpers/sign-in.js';
import { TokenClient } from './helpers/token-client.js';

const CLIENTS = [
  ...AUTHORIZE_CLIENTS,
  { client_id: 'first-party', client_secret_hash: hashClientSecret(WEB_SECRET), grant_types: ['password'], scope: 'read' },
  { client_id: 'cli', grant_types: ['password'], scope: 'read', token_endpoint_auth_method: 'none' },
];
const CODE_REQUEST = { response_type: 'code', client_id: 'web', redirect_uri: WEB_REDIRECT, scope: 'read', state: 'st-1' };
/** Limits the tests below do not exercise stay out of the way. */
const ROOMY = { PASSWORD_VERIFY_QUEUE: '1000' };

async function setup(t: Test, options: { env?: Record<string, string>; store?: Store | undefined; users?: UserRegistry } = {}) {
  const { users, counting } = CountingAuthenticator.around(options.users ?? cheapUsers());
  const server = await buildTestServer(t, { clients: CLIENTS, users, env: { ...ROOMY, ...options.env }, ...(options.store ? { store: options.store } : {}) });
  const passwordGrant = (username: string, password: string, ip: string, client = 'first-party') =>
    new TokenClient(server.app, client, client === 'cli' ? null : WEB_SECRET, ip).token({ grant_type: 'password', username, password });
  /** Opens the login page in a fresh browser at `ip`; `submit` posts the credentials. */
  const loginForm = async (ip: string) => {
    const browser = new InjectBrowser(server.app, ip);
    const page = await browser.get(authorizeUrl(CODE_REQUEST));
    return {
      browser,
      submit: (username: string, password: string) => browser.post(formAction(page.body), { ...formFields(page.body), username, password }),
    };
  };
  return { ...server, counting, passwordGrant, loginForm };
}

const statuses = (responses: readonly LightMyRequestResponse[]) =>
  responses.reduce<Record<number, number>>((counts, { statusCode }) => ({ ...counts, [statusCode]: (counts[statusCode] ?? 0) + 1 }), {});

/** The limits through both endpoints, on one store kind. */
function endpointLimits(t: Test, name: string, openStore: (t: Test) => Promise<Store | undefined>) {
  t.test(`${name}: POST /oauth2/token grant_type=password, 60 concurrent wrong passwords`, async (t) => {
    const { passwordGrant, counting } = await setup(t, { store: await openStore(t) });
    const responses = await Promise.all(Array.from({ length: 60 }, (_, i) => passwordGrant('alice', `wrong-${i}`, `198.51.100.${i}`)));
    t.equal(counting.verifications, 5, 'exactly LOGIN_MAX_FAILURES passwords checked');
    t.same(statuses(responses), { 400: 5, 429: 55 });
    t.same(responses.find((r) => r.statusCode === 400)?.json(), { error: 'invalid_grant', error_description: 'invalid username or password' });
    const refused = responses.find((r) => r.statusCode === 429) as LightMyRequestResponse;
    t.match(refused.headers, { ...NO_STORE_JSON, 'retry-after': '900' });
    t.same(refused.json(), { error: 'invalid_grant', error_description: 'too many failed attempts: retry after 900 seconds' });
    t.equal((await passwordGrant(ALICE.username, ALICE.password, '192.0.2.1')).statusCode, 429, 'the right password afterwards too');
    t.equal(counting.verifications, 5);
  });

  t.test(`${name}: the login form, 60 concurrent wrong passwords`, async (t) => {
    const { loginForm, counting } = await setup(t, { store: await openStore(t) });
    const forms = await Promise.all(Array.from({ length: 60 }, (_, i) => loginForm(`198.51.100.${i}`)));
    const responses = await Promise.all(forms.map((form, i) => form.submit('alice', `wrong-${i}`)));
    t.equal(counting.verifications, 5);
    t.same(statuses(responses), { 200: 5, 429: 55 });
    t.match(responses.find((r) => r.statusCode === 200)?.body, '<p class="error" role="alert">Incorrect username or password.</p>');
    const refused = responses.find((r) => r.statusCode === 429) as LightMyRequestResponse;
    t.equal(refused.headers['retry-after'], '900');
    t.match(refused.body, '<p class="error" role="alert">Too many failed sign-in attempts. Try again in 15 minutes.</p>');
    t.ok(forms.every((form) => form.browser.cookie('oauth_session') === undefined), 'no session anywhere');
  });

  t.test(`${name}: the login form and the password grant count on the same counters`, async (t) => {
    const { loginForm, passwordGrant, counting } = await setup(t, { store: await openStore(t), env: { LOGIN_MAX_FAILURES: '4', LOGIN_MAX_FAILURES_PER_IP: '3' } });
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

endpointLimits(t, 'memory store', async () => undefined);

t.test('Redis store (a private redis-server)', async (t) => {
  const redis = await startPrivateRedis(t);
  endpointLimits(t, 'Redis store', (t) => openRedisStore(t, redis));

  t.test('Redis down: no sign-in, a clear error, no password checked', async (t) => {
    const down = await startPrivateRedis(t);
    const { passwordGrant, loginForm, counting } = await setup(t, { store: await openRedisStore(t, down, 300) });
    const form = await loginForm('192.0.2.1');
    await down.kill();
    const token = await passwordGrant(ALICE.username, ALICE.password, '192.0.2.1');
    t.equal(token.statusCode, 500);
    t.match(token.headers, NO_STORE_JSON);
    t.same(token.json(), { error: 'server_error', error_description: 'the authorization server encountered an unexpected condition' });
    const login = await form.submit(ALICE.username, ALICE.password);
    t.equal(login.statusCode, 303);
    t.same(redirectParams(login.headers.location as string), {
      error: 'temporarily_unavailable',
      error_description: 'the authorization server is temporarily unavailable, try again later',
      state: 'st-1',
      iss: ISSUER,
    });
    t.equal(form.browser.cookie('oauth_session'), undefined);
    t.equal(counting.verifications, 0);
  });
});

t.test('the cap on concurrent password verifications (PASSWORD_VERIFY_CONCURRENCY, PASSWORD_VERIFY_QUEUE)', async (t) => {
  t.test('password grant, real scrypt cost: the excess gets 503 at once, never a wait', async (t) => {
    const { passwordGrant, counting } = await setup(t, { users: await testUsers(), env: { PASSWORD_VERIFY_CONCURRENCY: '2', PASSWORD_VERIFY_QUEUE: '2' } });
    const started = Date.now();
    const timed = await Promise.all(
      Array.from({ length: 30 }, async (_, i) => {
        const res = await passwordGrant(`nobody-${i}`, 'guess', `198.51.100.${i}`);
        return { res, ms: Date.now() - started };
      }),
    );
    const busy = timed.filter(({ res }) => res.statusCode === 503);
    t.equal(counting.verifications, 4, 'two running, two queued');
    t.same(statuses(timed.map(({ res }) => res)), { 400: 4, 503: 26 });
    t.match(busy[0]?.res.headers, { ...NO_STORE_JSON, 'retry-after': '1' });
    t.same(busy[0]?.res.json(), { error: 'temporarily_unavailable', error_description: 'too many sign-ins in progress: retry after 1 second' });
    const slowest = Math.max(...busy.map(({ ms }) => ms));
    const checked = timed.filter(({ res }) => res.statusCode === 400).map(({ ms }) => ms);
    t.ok(slowest < 1000, `every 503 within ${slowest} ms (the four checked answered after ${Math.min(...checked)}-${Math.max(...checked)} ms)`);
    t.equal((await passwordGrant(ALICE.username, ALICE.password, '198.51.100.0')).statusCode, 200, 'refused attempts left nothing counted');
  });

  t.test('login form: a "busy" page with 503 and Retry-After, the form kept', async (t) => {
    const { loginForm, counting } = await setup(t, { env: { PASSWORD_VERIFY_CONCURRENCY: '1', PASSWORD_VERIFY_QUEUE: '0' } });
    const [first, second] = await Promise.all([loginForm('192.0.2.1'), loginForm('192.0.2.2')]);
    counting.hold();
    const held = first!.submit(ALICE.username, ALICE.password);
    await until(() => counting.verifications === 1, 'the first check');
    const busy = await second!.submit('bob', 'bob-password-1');
    t.equal(busy.statusCode, 503);
    t.equal(busy.headers['retry-after'], '1');
    t.match(busy.body, '<p class="error" role="alert">Too many sign-ins are in progress right now. Please try again in a moment.</p>');
    t.match(busy.body, 'value="bob"', 'the username is kept');
    counting.release();
    t.equal((await held).statusCode, 303);
  });
});

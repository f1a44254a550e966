import t, { type Test } from 'tap';
import { AdminProblem } from '../../src/admin/problems.js';
import { hashClientSecret } from '../../src/clients/secret.js';
import { UserRegistry } from '../../src/users/registry.js';
import { AUTHORIZE_CLIENTS, WEB_REDIRECT, WEB_SECRET } from '../helpers/authorize-fixtures.js';
import { authorizeUrl, codeRequest, formAction, formFields, InjectBrowser, pkcePair, signInAndDecide } from '../helpers/browser-flow.js';
import { expectOAuthError } from '../helpers/oauth-error.js';
import { cheapPasswordHash } from '../helpers/passwords.js';
import { tokenRequest } from '../helpers/security-flows.js';
import { basic, buildTestServer, FORM_HEADERS, form, type TestServer } from '../helpers/server.js';

/**
 * Users and subject marks through the admin service (src/admin/users.ts), on one instance with
 * the memory store: a disabled user cannot sign in (login form, password grant), their refresh
 * tokens and open sessions stop working, their grants are revoked; a file user is read-only.
 */

const CLIENTS = [
  ...AUTHORIZE_CLIENTS,
  // A resource server that introspects every client's tokens.
  {
    client_id: 'api',
    client_secret_hash: hashClientSecret(WEB_SECRET),
    grant_types: ['client_credentials'],
    introspect_all_tokens: true,
  },
  {
    client_id: 'legacy',
    client_secret_hash: hashClientSecret(WEB_SECRET),
    grant_types: ['password', 'refresh_token'],
    scope: 'read',
  },
];

const USERS = [
  { username: 'alice', password_hash: cheapPasswordHash('wonderland-2026'), sub: 'user-alice', roles: ['admin'] },
  { username: 'paused', password_hash: cheapPasswordHash('paused-password'), disabled: true },
];

const CAROL = { username: 'carol', password: 'carol-password-1' };

async function problemOf(promise: Promise<unknown>): Promise<Record<string, unknown>> {
  try {
    await promise;
  } catch (err) {
    if (!(err instanceof AdminProblem)) throw err;
    return { type: err.type, status: err.status, detail: err.detail, errors: err.errors };
  }
  throw new Error('no problem');
}

async function server(t: Test): Promise<TestServer> {
  const s = await buildTestServer(t, { clients: CLIENTS, users: UserRegistry.fromEntries(USERS) });
  await s.admin.users.create({ username: CAROL.username, password_hash: cheapPasswordHash(CAROL.password), claims: { name: 'Carol' } });
  return s;
}

const passwordGrant = (s: TestServer, username: string, password: string) =>
  tokenRequest(s.app, 'legacy', WEB_SECRET, { grant_type: 'password', username, password });

/** A browser where `credentials` signed in (and approved `web`), and the authorization response it got. */
async function signedIn(s: TestServer, credentials: { username: string; password: string }) {
  const browser = new InjectBrowser(s.app);
  const done = await signInAndDecide(browser, codeRequest('web', WEB_REDIRECT, pkcePair().challenge), credentials);
  return { browser, done };
}

/** What the browser's session gets at the authorization endpoint: a code at once (302), or the login page (200). */
async function sessionAnswer(browser: InjectBrowser): Promise<number> {
  return (await browser.get(authorizeUrl(codeRequest('web', WEB_REDIRECT, pkcePair().challenge)))).statusCode;
}

t.test('a user created through the admin service signs in at once, by form and by the password grant', async (t) => {
  const s = await server(t);
  const carol = s.registries.users.get('carol');
  t.same(carol, { username: 'carol', sub: 'carol', claims: { name: 'Carol' }, roles: [] });
  t.equal(s.registries.users.heldBySub('carol')?.source, 'store');
  t.equal((await passwordGrant(s, CAROL.username, CAROL.password)).statusCode, 200);
  const { browser, done } = await signedIn(s, CAROL);
  t.equal(done.statusCode, 303, 'signed in and approved');
  t.equal(await sessionAnswer(browser), 302, 'the session stands: a code at once');
  t.same(s.registries.users.get('alice')?.roles, ['admin'], 'USERS_FILE roles');
});

t.test('disabled: no sign-in, no refresh, the open session ends, the grants are revoked; enabled: a new sign-in works', async (t) => {
  const s = await server(t);
  const { browser } = await signedIn(s, CAROL);
  const tokens = (await passwordGrant(s, CAROL.username, CAROL.password)).json();
  t.same(await s.admin.users.setDisabled('carol', true), { revokedGrants: 2 }, 'the code grant and the password grant');
  t.equal((await s.store.entries.getEntry('user', 'carol'))?.document.disabled, true);
  t.same((await s.store.entries.getEntry('subject', 'carol'))?.document, {
    disabled: true,
    sessions_revoked_at: Math.floor(s.clock.now / 1000),
  });

  t.equal(await sessionAnswer(browser), 200, 'the session ended: the login page');
  expectOAuthError(
    t,
    await tokenRequest(s.app, 'legacy', WEB_SECRET, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token }),
    {
      status: 400,
      error: 'invalid_grant',
      description: 'the user is disabled',
    },
  );
  expectOAuthError(t, await passwordGrant(s, CAROL.username, CAROL.password), {
    status: 400,
    error: 'invalid_grant',
    description: 'invalid username or password',
  });
  const other = new InjectBrowser(s.app);
  const login = await other.get(authorizeUrl(codeRequest('web', WEB_REDIRECT, pkcePair().challenge)));
  const refused = await other.post(formAction(login.body), { ...formFields(login.body), ...CAROL });
  t.equal(refused.statusCode, 200, 'the login form again');
  t.match(refused.body, '<p class="error" role="alert">Incorrect username or password.</p>', 'as for a wrong password');
  t.equal(other.cookie('oauth_session'), undefined, 'no session');

  t.same(await s.admin.users.setDisabled('carol', false), { revokedGrants: 0 });
  t.equal((await s.store.entries.getEntry('user', 'carol'))?.document.disabled, undefined);
  t.equal(await sessionAnswer(browser), 200, 'the old session stays ended');
  const refreshed = await tokenRequest(s.app, 'legacy', WEB_SECRET, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token });
  t.equal(refreshed.json().error, 'invalid_grant', 'the old grant stays revoked');
  s.clock.now += 1000;
  t.equal((await passwordGrant(s, CAROL.username, CAROL.password)).statusCode, 200);
  t.equal(await sessionAnswer((await signedIn(s, CAROL)).browser), 302, 'a new session stands');
});

t.test('any sub can be marked: a federated user, a file user’s sessions; a file user is disabled in the file', async (t) => {
  const s = await server(t);
  t.same(await s.admin.users.setDisabled('fed_github_12345', true), { revokedGrants: 0 });
  t.same(s.entrySync.entry('subject', 'fed_github_12345')?.document, {
    disabled: true,
    sessions_revoked_at: Math.floor(s.clock.now / 1000),
  });
  t.same(await problemOf(s.admin.users.setDisabled('user-alice', true)), {
    type: 'urn:oauth2-token-service:problem:conflict-file-entry',
    status: 409,
    detail: 'user "user-alice" is declared in USERS_FILE: change it there',
    errors: [],
  });
  const { browser } = await signedIn(s, { username: 'alice', password: 'wonderland-2026' });
  t.equal(await sessionAnswer(browser), 302);
  await s.admin.users.revokeSessions('user-alice');
  t.equal(await sessionAnswer(browser), 200, "alice's session ended");
  s.clock.now += 1000;
  t.equal(await sessionAnswer((await signedIn(s, { username: 'alice', password: 'wonderland-2026' })).browser), 302, 'she signs in again');
  expectOAuthError(t, await passwordGrant(s, 'paused', 'paused-password'), {
    status: 400,
    error: 'invalid_grant',
    description: 'invalid username or password',
  });
});

t.test('refused: a file user’s username or sub, a taken username, a client’s id as sub, an invalid document', async (t) => {
  const s = await server(t);
  const hash = cheapPasswordHash('password-1234');
  t.same(await problemOf(s.admin.users.create({ username: 'alice', password_hash: hash, sub: 'alice-2' })), {
    type: 'urn:oauth2-token-service:problem:conflict-file-entry',
    status: 409,
    detail: 'user "alice" is declared in USERS_FILE: change it there',
    errors: [],
  });
  t.match(await problemOf(s.admin.users.create({ username: 'alice-2', password_hash: hash, sub: 'user-alice' })), { status: 409 });
  t.same(await problemOf(s.admin.users.create({ username: 'carol', password_hash: hash, sub: 'carol-2' })), {
    type: 'urn:oauth2-token-service:problem:conflict-exists',
    status: 409,
    detail: 'a user with the username "carol" exists already',
    errors: [],
  });
  t.same((await problemOf(s.admin.users.create({ username: 'service', password_hash: hash }))).errors, [
    { field: 'username', problem: 'is the id of a client_credentials client, whose tokens carry it as their sub (RFC 9700 §4.15)' },
  ]);
  t.same((await problemOf(s.admin.users.create({ username: 'dave', password_hash: 'plain', roles: ['root'] }))).errors, [
    { field: 'password_hash', problem: 'must be the output of "oauth2-token-service password hash"' },
    { field: 'roles.0', problem: 'must be one of admin' },
  ]);
  t.same((await problemOf(s.admin.users.create({ username: 'eve', password_hash: hash, sub: 'fed_x' }))).errors, [
    { field: 'sub', problem: 'must not begin with "fed_" (reserved for users who sign in through an identity provider)' },
  ]);
});

t.test('a new password (write-only, scrypt, the length rule of users add); deleted: sessions end, grants revoked', async (t) => {
  const s = await server(t);
  t.same((await problemOf(s.admin.users.setPassword('carol', 'short'))).errors, [
    { field: 'password', problem: 'must have at least 8 characters' },
  ]);
  const entry = await s.admin.users.setPassword('carol', 'a-new-password');
  t.match(entry.document.password_hash, /^scrypt\$/);
  t.equal(JSON.stringify(entry.document).includes('a-new-password'), false, 'only the hash is stored');
  t.equal((await passwordGrant(s, 'carol', CAROL.password)).statusCode, 400);
  t.equal((await passwordGrant(s, 'carol', 'a-new-password')).statusCode, 200);

  const { browser } = await signedIn(s, { username: 'carol', password: 'a-new-password' });
  t.same(await s.admin.users.delete('carol'), { revokedGrants: 2 });
  t.equal(s.registries.users.get('carol'), undefined);
  t.equal(await sessionAnswer(browser), 200, 'the session ended');
  t.match(await problemOf(s.admin.users.delete('carol')), { status: 404, detail: 'user "carol" does not exist' });
});

t.test('disabled: a token that names no grant (implicit) gets nothing more at userinfo', async (t) => {
  const s = await server(t);
  const implicit = await signInAndDecide(
    new InjectBrowser(s.app),
    { response_type: 'token', client_id: 'spa', scope: 'openid profile', state: 'imp' },
    CAROL,
  );
  const token = new URLSearchParams((implicit.headers.location as string).split('#')[1]).get('access_token') as string;
  const userinfo = () => s.app.inject({ url: '/oauth2/userinfo', headers: { authorization: `Bearer ${token}` } });
  t.same([(await userinfo()).statusCode, (await userinfo()).json()], [200, { sub: 'carol', name: 'Carol' }], 'before');
  await s.admin.users.setDisabled('carol', true);
  const refused = await userinfo();
  t.same(
    [refused.statusCode, refused.headers['www-authenticate']],
    [
      401,
      'Bearer realm="https://as.example.com", error="invalid_token", error_description="the access token is invalid, expired or revoked", DPoP realm="https://as.example.com", algs="ES256 EdDSA RS256 PS256"',
    ],
    'after: as a revoked token',
  );
});

t.test('a USERS_FILE user disabled by a reload: their tokens introspect inactive, as their refresh is refused', async (t) => {
  // Disabling through the admin API also revokes the user's grants; a reload of the file does
  // not, so it is the in-memory check that answers.
  const users = UserRegistry.fromEntries(USERS);
  const s = await buildTestServer(t, { clients: CLIENTS, users });
  const tokens = (await passwordGrant(s, 'alice', 'wonderland-2026')).json();
  const introspect = async (clientId: string, token: string) =>
    (
      await s.app.inject({
        method: 'POST',
        url: '/oauth2/introspect',
        headers: { ...FORM_HEADERS, authorization: basic(clientId, WEB_SECRET) },
        payload: form({ token }),
      })
    ).json();
  t.match(
    await introspect('api', tokens.access_token),
    { active: true, sub: 'user-alice', client_id: 'legacy' },
    'the access token, before',
  );
  t.match(await introspect('legacy', tokens.refresh_token), { active: true, sub: 'user-alice' }, 'the refresh token, before');

  users.replace(UserRegistry.fromEntries([{ ...USERS[0], disabled: true }, USERS[1]]));
  // RFC 7662 §2.2: a token that is not active gets `"active": false` and nothing else.
  t.same(await introspect('api', tokens.access_token), { active: false }, 'the access token, after');
  t.same(await introspect('legacy', tokens.refresh_token), { active: false }, 'the refresh token, after');
  expectOAuthError(
    t,
    await tokenRequest(s.app, 'legacy', WEB_SECRET, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token }),
    { status: 400, error: 'invalid_grant', description: 'the user is disabled' },
  );
});

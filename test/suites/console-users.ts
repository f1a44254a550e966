import type { Test } from 'tap';
import { ALICE } from '../helpers/authorize-fixtures.js';
import { InjectBrowser } from '../helpers/browser-flow.js';
import { connectApp, consoleTestServer } from '../helpers/console-apps.js';
import { follow, formOn, ROOT, signedInAt } from '../helpers/console.js';
import { ISSUER } from '../helpers/server.js';
import type { OpenStore } from '../helpers/stores.js';

/**
 * The console's users through inject(), on a store: the list, a new local user (its
 * password write-only, its problems next to the fields), disabling one (their open session at
 * /account ends, their sign-in is refused), the role admin (they reach the console), deletion
 * after a confirmation; USERS_FILE's users read-only; nobody disables, demotes or deletes
 * themselves; CSRF and the role checked; every change the admin API's audit event, the person
 * its actor.
 */

const SAME_ORIGIN = { origin: ISSUER, 'sec-fetch-site': 'same-origin' };
const CAROL = { username: 'carol', password: 'carol-secret-password-42', sub: 'carol' } as const;

async function adminOn(t: Test, open: OpenStore) {
  const server = await consoleTestServer(t, open, {}, [], { logLevel: 'trace' });
  const { browser } = await signedInAt(server.app, '/admin/users', ROOT);
  /** Creates carol through the form (admin or not). */
  const createCarol = async (admin = false) => {
    const form = await browser.get('/admin/users/new');
    const fields: Record<string, string> = {
      ...formOn(form.body, '/admin/users/new'),
      username: CAROL.username,
      password: CAROL.password,
      name: 'Carol',
    };
    return browser.post('/admin/users/new', admin ? { ...fields, admin: 'true' } : fields, SAME_ORIGIN);
  };
  return { ...server, browser, createCarol };
}

export function consoleUsersSuite(t: Test, name: string, open: OpenStore): void {
  t.test(`the console's users (${name})`, async (t) => {
    t.test('the list: users of the file, read-only, with the file they come from', async (t) => {
      const { browser } = await adminOn(t, open);
      const list = await browser.get('/admin/users');
      t.equal(list.statusCode, 200);
      t.match(list.headers, { 'cache-control': 'no-store', 'content-type': 'text/html; charset=utf-8' });
      t.match(list.body, '<a href="/admin/users" aria-current="page">Users</a>');
      t.match(
        list.body,
        '<tr><td><a href="/admin/users/user?sub=user-alice">alice</a></td><td><code>user-alice</code></td>\n<td>File <code>USERS_FILE</code></td>',
      );
      const searched = await browser.get('/admin/users?q=ROOT&source=');
      t.match(searched.body, '<code>root</code>');
      t.notMatch(searched.body, '<code>user-alice</code>', 'searched by sub, username, email, name');
      const alice = await browser.get('/admin/users/user?sub=user-alice');
      t.equal(alice.statusCode, 200);
      t.match(alice.body, 'This entry is declared in <code>USERS_FILE</code>: it is read-only here, change it in the file.');
      t.notMatch(alice.body, /<form method="post" action="\/admin\/users\//, 'no change offered');
    });

    t.test('a new user: CSRF checked, problems next to the fields, the password never echoed, audited', async (t) => {
      const { browser, admin, audit, logText } = await adminOn(t, open);
      const form = await browser.get('/admin/users/new');
      t.equal(form.statusCode, 200);
      const fields = formOn(form.body, '/admin/users/new');
      const sent: Record<string, string> = { ...fields, username: 'dave', email: 'not-an-email', password: 'short-1' };
      const { csrf_token: _csrf, ...withoutToken } = sent;
      const refused = await browser.post('/admin/users/new', withoutToken, SAME_ORIGIN);
      t.equal(refused.statusCode, 403);
      t.match(refused.body, '<h1>Form refused</h1>');
      t.same((await admin.api.users.list({ limit: 50, q: 'dave' })).items, [], 'nothing created');

      const again = await browser.post('/admin/users/new', sent, SAME_ORIGIN);
      t.equal(again.statusCode, 400);
      t.match(again.body, '<h1>New user</h1>');
      t.match(again.body, '<div class="error" role="alert"><p>This was not saved. Correct the fields marked below:</p>');
      t.match(
        again.body,
        /<input id="email" name="email" type="email" value="not-an-email" autocomplete="off" aria-invalid="true" aria-describedby="email-error"><p class="field-error" id="email-error">[^<]+<\/p>/,
      );
      t.match(
        again.body,
        /aria-invalid="true" aria-describedby="password-hint password-error"><p class="field-error" id="password-error">must have at least 8 characters<\/p>/,
      );
      t.match(again.body, 'value="dave"', 'the values kept');
      t.notMatch(again.body, 'short-1', 'the password is not written back');

      const created = await browser.post(
        '/admin/users/new',
        { ...sent, email: 'dave@example.com', password: 'dave-password-2026' },
        SAME_ORIGIN,
      );
      t.equal(created.statusCode, 303);
      t.equal(created.headers.location, '/admin/users/user?sub=dave&notice=user-created');
      const page = await browser.get(created.headers.location as string);
      t.match(page.body, '<p class="notice" role="status">The user was created.</p>');
      t.match(page.body, '<dt>Source</dt><dd>Added here</dd>');
      t.match(
        audit().find((line) => line.event === 'admin.changed'),
        {
          actor: { sub: 'root' },
          entity: 'user',
          id: 'dave',
          action: 'created',
          fields: ['claims', 'password', 'username'],
        },
      );
      const exists = await browser.post(
        '/admin/users/new',
        { ...sent, email: 'dave@example.com', password: 'dave-password-2026' },
        SAME_ORIGIN,
      );
      t.equal(exists.statusCode, 409, 'a username taken: the form again');
      t.match(exists.body, 'a user with the username &#34;dave&#34; exists already');
      t.notMatch(logText(), /short-1|dave-password-2026/, 'no password in any log line (trace)');
      t.notMatch(page.body, /password_hash|scrypt\$/, 'nor its hash on a page');
    });

    t.test('a password set: write-only, its rule the API’s, audited', async (t) => {
      const { app, browser, createCarol, audit, logText } = await adminOn(t, open);
      await createCarol();
      const page = await browser.get('/admin/users/user?sub=carol');
      const fields = formOn(page.body, '/admin/users/password');
      const short = await browser.post('/admin/users/password', { ...fields, password: 'tiny' }, SAME_ORIGIN);
      t.equal(short.statusCode, 400);
      t.match(short.body, '<p class="field-error" id="password-error">must have at least 8 characters</p>');
      const set = await browser.post('/admin/users/password', { ...fields, password: 'carol-new-password-7' }, SAME_ORIGIN);
      t.equal(set.statusCode, 303);
      t.equal(set.headers.location, '/admin/users/user?sub=carol&notice=user-password-set');
      t.match(audit().at(-1), { actor: { sub: 'root' }, entity: 'user', id: 'carol', action: 'password_set', fields: ['password'] });
      const withNew = await signedInAt(app, '/account', { username: 'carol', password: 'carol-new-password-7' });
      t.equal(withNew.page.statusCode, 200, 'carol signs in with the new password');
      t.notMatch(logText(), /carol-new-password-7|tiny/);
    });

    t.test('disabled: their open session at /account ends, they cannot sign in; enabled again', async (t) => {
      const { app, browser, createCarol, audit } = await adminOn(t, open);
      await createCarol();
      const { browser: carol, page } = await signedInAt(app, '/account', CAROL);
      t.equal(page.statusCode, 200);
      t.match(page.body, '<h1>Your account</h1>');
      const user = await browser.get('/admin/users/user?sub=carol');
      const disable = await browser.post('/admin/users/access', formOn(user.body, '/admin/users/access'), SAME_ORIGIN);
      t.equal(disable.statusCode, 303);
      t.equal(disable.headers.location, '/admin/users/user?sub=carol&notice=user-disabled');
      t.match(audit().at(-1), { actor: { sub: 'root' }, entity: 'user', id: 'carol', action: 'disabled', fields: ['disabled'] });
      const ended = await carol.get('/account');
      t.equal(ended.statusCode, 303, 'the session ended: to the sign-in');
      t.match(ended.headers.location, /^\/oauth2\/authorize\?/);
      const login = await follow(carol, ended);
      const refused = await carol.post('/oauth2/authorize/login', { ...formOn(login.body, '/oauth2/authorize/login'), ...CAROL });
      t.equal(refused.statusCode, 200, 'the login page again');
      t.match(refused.body, '<p class="error" role="alert">Incorrect username or password.</p>', 'a disabled user cannot sign in');
      t.equal((await carol.get('/account')).statusCode, 303, 'still signed out');
      const disabled = await browser.get('/admin/users/user?sub=carol');
      t.match(disabled.body, '<dt>Status</dt><dd>Disabled</dd>');
      const enable = await browser.post('/admin/users/access', formOn(disabled.body, '/admin/users/access'), SAME_ORIGIN);
      t.equal(enable.headers.location, '/admin/users/user?sub=carol&notice=user-enabled');
      t.equal((await signedInAt(app, '/account', CAROL)).page.statusCode, 200, 'they sign in again');
    });

    t.test('the role admin: the user reaches the console; removed, they do not', async (t) => {
      const { app, browser, createCarol, audit } = await adminOn(t, open);
      await createCarol();
      t.equal((await signedInAt(app, '/admin', CAROL)).page.statusCode, 403, 'not an administrator yet');
      const user = await browser.get('/admin/users/user?sub=carol');
      t.match(user.body, '<p>This user is not an administrator.</p>');
      const made = await browser.post('/admin/users/role', formOn(user.body, '/admin/users/role'), SAME_ORIGIN);
      t.equal(made.headers.location, '/admin/users/user?sub=carol&notice=user-role-changed');
      t.match(audit().at(-1), { actor: { sub: 'root' }, entity: 'user', id: 'carol', action: 'updated', fields: ['roles'] });
      const { browser: carol, page } = await signedInAt(app, '/admin', CAROL);
      t.equal(page.statusCode, 200);
      t.match(page.body, '<h1>Overview</h1>');
      const own = await carol.get('/admin/users/user?sub=carol');
      t.match(own.body, 'You cannot remove the role admin from your own account: another administrator has to.');
      t.match(own.body, 'You cannot disable your own account: another administrator has to.');
      const demote = await carol.post(
        '/admin/users/role',
        { csrf_token: formOn(own.body, '/admin/sign-out').csrf_token as string, sub: 'carol', admin: 'false' },
        SAME_ORIGIN,
      );
      t.equal(demote.statusCode, 409, 'not themselves');
      t.match(
        demote.body,
        '<p class="error" role="alert">You cannot remove the role admin from your own account: another administrator has to.</p>',
      );
      const removed = await browser.post(
        '/admin/users/role',
        formOn((await browser.get('/admin/users/user?sub=carol')).body, '/admin/users/role'),
        SAME_ORIGIN,
      );
      t.equal(removed.statusCode, 303);
      t.equal((await carol.get('/admin/users')).statusCode, 403, 'the role gone, their console session is refused');
    });

    t.test('deleted after a confirmation naming them; nobody deletes or disables themselves', async (t) => {
      const { browser, createCarol, store, audit, app } = await adminOn(t, open);
      await createCarol();
      const { grantId } = await connectApp(app, 'printer', CAROL);
      const confirm = await browser.get('/admin/users/delete?sub=carol');
      t.equal(confirm.statusCode, 200);
      t.match(confirm.body, '<h1>Delete carol?</h1>');
      t.match(confirm.body, 'The user <strong>carol</strong> (<code>carol</code>) is deleted');
      const done = await browser.post('/admin/users/delete', formOn(confirm.body, '/admin/users/delete'), SAME_ORIGIN);
      t.equal(done.statusCode, 303);
      t.equal(done.headers.location, '/admin/users?notice=user-deleted');
      t.match(audit().at(-1), { actor: { sub: 'root' }, entity: 'user', id: 'carol', action: 'deleted', fields: [] });
      t.equal((await browser.get('/admin/users/user?sub=carol')).statusCode, 404);
      const csrf = formOn(confirm.body, '/admin/sign-out').csrf_token as string;
      for (const [path, fields] of [
        ['/admin/users/delete', { sub: 'root' }],
        ['/admin/users/access', { sub: 'root', disabled: 'true' }],
      ] as const) {
        const self = await browser.post(path, { csrf_token: csrf, ...fields }, SAME_ORIGIN);
        t.equal(self.statusCode, 409, path);
      }
      t.equal((await signedInAt(app, '/admin', ROOT, new InjectBrowser(app))).page.statusCode, 200, 'root is still an administrator');
      t.equal(await store.isGrantRevoked(grantId), true, 'their grants revoked');
    });

    t.test('a file user cannot change here; a person without the role changes nothing', async (t) => {
      const { app, browser, admin } = await adminOn(t, open);
      const csrf = formOn((await browser.get('/admin/users')).body, '/admin/sign-out').csrf_token as string;
      const fileUser = await browser.post('/admin/users/access', { csrf_token: csrf, sub: 'user-alice', disabled: 'true' }, SAME_ORIGIN);
      t.equal(fileUser.statusCode, 409);
      t.match(fileUser.body, 'user &#34;user-alice&#34; is declared in USERS_FILE: change it there');
      t.equal((await admin.api.users.get('user-alice')).view.disabled, false, 'nothing changed');
      const { browser: alice, page } = await signedInAt(app, '/admin/users', ALICE);
      t.equal(page.statusCode, 403);
      const aliceCsrf = formOn(page.body, '/admin/sign-out').csrf_token as string;
      const create = await alice.post(
        '/admin/users/new',
        { csrf_token: aliceCsrf, username: 'mallory', password: 'mallory-password-1' },
        SAME_ORIGIN,
      );
      t.equal(create.statusCode, 403);
      t.same((await admin.api.users.list({ limit: 50, q: 'mallory' })).items, [], 'nothing created');
    });
  });
}

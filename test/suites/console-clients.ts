import type { Test } from 'tap';
import { WEB_SECRET } from '../helpers/authorize-fixtures.js';
import { formFields } from '../helpers/browser-flow.js';
import { formOn, ROOT, signedInAt } from '../helpers/console.js';
import { consoleTestServer } from '../helpers/console-apps.js';
import { READER, readOnlySession, SAME_ORIGIN, scopeOf, secretOn } from '../helpers/console-entries.js';
import { tokenRequest } from '../helpers/security-flows.js';
import type { OpenStore } from '../helpers/stores.js';

/**
 * The console's clients through inject(), on a store: the list (the file's read-only with
 * their file), a client_credentials client created with its secret shown once, edited (the
 * next token has the new scope; a stale edit refused), a new secret, deleted after a
 * confirmation (the token endpoint refuses it); the form's problems next to its fields;
 * CSRF, and admin:write, checked before anything changes; every change audited with the person.
 */

const SERVICE = { grant_types: 'client_credentials', scope: 'photos:read', token_endpoint_auth_method: 'client_secret_basic' };

export function consoleClientsSuite(t: Test, name: string, open: OpenStore): void {
  t.test(`the console's clients (${name})`, async (t) => {
    const server = async (t: Test) => consoleTestServer(t, open, { DYNAMIC_CLIENT_REGISTRATION: 'open' }, [READER]);

    t.test('the list: the file clients read-only with their file, by source and by search', async (t) => {
      const { app } = await server(t);
      const { browser, page } = await signedInAt(app, '/admin/clients', ROOT);
      t.equal(page.statusCode, 200);
      t.match(page.headers, { 'cache-control': 'no-store', 'content-type': 'text/html; charset=utf-8' });
      t.match(page.body, '<a href="/admin/clients" aria-current="page">Clients</a>');
      t.match(
        page.body,
        '<tr><td><a href="/admin/clients/edit?client_id=photos"><code>photos</code></a></td><td>Acme Photos</td>\n<td>File: <code>CLIENTS_FILE</code></td><td><code>authorization_code refresh_token</code></td><td><code>client_secret_basic</code></td>\n<td>Read-only</td></tr>',
      );
      t.notMatch(page.body, '/admin/clients/delete?client_id=photos', 'no delete for a file client');
      const searched = await browser.get('/admin/clients?q=PRINT&source=');
      t.match(searched.body, '<code>printer</code>');
      t.notMatch(searched.body, '<code>photos</code>');
      t.match(searched.body, 'value="PRINT"', 'the search kept');
      const added = await browser.get('/admin/clients?source=admin');
      t.match(added.body, '<p class="muted">No client matches.</p>');
      t.match(added.body, '<option value="admin" selected>Added here</option>');
      const bad = await browser.get('/admin/clients?source=elsewhere');
      t.equal(bad.statusCode, 400, 'a source the API does not know');
    });

    t.test("the copy button's script: a file of its own, no session needed, nothing secret in it", async (t) => {
      const { app } = await server(t);
      const res = await app.inject({ method: 'GET', url: '/admin/copy.js' });
      t.equal(res.statusCode, 200);
      t.match(res.headers, { 'content-type': 'text/javascript; charset=utf-8', 'x-content-type-options': 'nosniff' });
      t.match(res.body, 'navigator.clipboard.writeText(field.value)');
    });

    t.test('a file client: shown read-only, naming its file; a change of it refused (409), nothing changes', async (t) => {
      const { app, audit } = await server(t);
      const { browser, page } = await signedInAt(app, '/admin/clients/edit?client_id=service', ROOT);
      t.equal(page.statusCode, 200);
      t.match(page.body, '<p>Declared in <code>CLIENTS_FILE</code>: it is read-only here, change it in that file.</p>');
      t.notMatch(page.body, /<form [^>]*action="\/admin\/clients\//, 'no form');
      const confirm = await browser.get('/admin/clients/delete?client_id=service');
      t.equal(confirm.statusCode, 409);
      const csrf = formFields(page.body).csrf_token as string;
      const etag = '"file-x"';
      for (const path of ['/admin/clients/delete', '/admin/clients/secret']) {
        const refused = await browser.post(path, { csrf_token: csrf, client_id: 'service', etag }, SAME_ORIGIN);
        t.equal(refused.statusCode, 409, path);
        t.match(refused.body, 'client &#34;service&#34; is declared in CLIENTS_FILE: change it there');
      }
      const token = await tokenRequest(app, 'service', WEB_SECRET, { grant_type: 'client_credentials' });
      t.equal(token.statusCode, 200, 'it still works');
      t.same(
        audit().filter((line) => line.event === 'admin.changed'),
        [],
      );
    });

    t.test('create, the secret once, a token; edit the scope; a new secret; delete: each audited with the person', async (t) => {
      const { app, audit, logText } = await server(t);
      const { browser, page } = await signedInAt(app, '/admin/clients/new', ROOT);
      t.equal(page.statusCode, 200);
      const fields = formOn(page.body, '/admin/clients/new');
      t.same(Object.keys(fields), ['csrf_token']);
      const withoutToken = { client_id: 'nightly', client_name: 'Nightly export', redirect_uris: '', ...SERVICE };
      const form = { ...fields, ...withoutToken };

      const forged = await browser.post('/admin/clients/new', withoutToken, SAME_ORIGIN);
      t.equal(forged.statusCode, 403, 'no CSRF token');
      t.match(forged.body, '<h1>Form refused</h1>');
      t.equal((await browser.get('/admin/clients/edit?client_id=nightly')).statusCode, 404, 'nothing created');

      const created = await browser.post('/admin/clients/new', form, SAME_ORIGIN);
      t.equal(created.statusCode, 201);
      t.match(created.headers, { 'cache-control': 'no-store' });
      t.match(created.headers['content-security-policy'], /; script-src https:\/\/as\.example\.com\/admin\/copy\.js;/);
      t.match(created.body, '<script src="/admin/copy.js" defer></script>');
      t.match(created.body, '<p>The client <code>nightly</code> was created. Its secret:</p>');
      const secret = secretOn(created.body) as string;
      t.match(secret, /^[A-Za-z0-9_-]{43,}$/);
      const first = await tokenRequest(app, 'nightly', secret, { grant_type: 'client_credentials' });
      t.equal(first.statusCode, 200);
      t.equal(scopeOf(first.json().access_token), 'photos:read');
      const creation = audit().find((line) => line.event === 'admin.changed');
      t.match(creation, { actor: { sub: 'root' }, entity: 'client', id: 'nightly', action: 'created' });
      // As the admin API's POST audits it: the names of every field written (defaults too), never a value.
      const createdFields = creation?.fields as string[];
      for (const field of ['client_id', 'client_name', 'client_secret', 'grant_types', 'scope', 'token_endpoint_auth_method'])
        t.ok(createdFields.includes(field), `the creation wrote ${field}`);

      const edit = await browser.get('/admin/clients/edit?client_id=nightly');
      t.equal(edit.statusCode, 200);
      const editFields = formOn(edit.body, '/admin/clients/edit');
      t.same(Object.keys(editFields).sort(), ['csrf_token', 'etag']);
      const changed = { ...editFields, client_id: 'nightly', client_name: 'Nightly export', ...SERVICE, scope: 'photos:read photos:write' };
      const saved = await browser.post('/admin/clients/edit', changed, SAME_ORIGIN);
      t.equal(saved.statusCode, 303);
      t.equal(saved.headers.location, '/admin/clients/edit?client_id=nightly&notice=client-saved');
      const next = await tokenRequest(app, 'nightly', secret, { grant_type: 'client_credentials' });
      t.equal(scopeOf(next.json().access_token), 'photos:read photos:write', 'the next token carries the new scope');

      const stale = await browser.post('/admin/clients/edit', { ...changed, scope: 'photos:write' }, SAME_ORIGIN);
      t.equal(stale.statusCode, 409, 'the ETag the form was read at is not current');
      t.match(stale.body, 'Someone changed this entry since you opened this form, so nothing was saved');
      t.match(stale.body, 'value="photos:write"', 'the values kept');
      const still = await tokenRequest(app, 'nightly', secret, { grant_type: 'client_credentials' });
      t.equal(scopeOf(still.json().access_token), 'photos:read photos:write', 'nothing overwritten');

      const rotate = await browser.get('/admin/clients/secret?client_id=nightly');
      t.match(rotate.body, '<h1>Give this client a new secret?</h1>');
      const rotated = await browser.post('/admin/clients/secret', formOn(rotate.body, '/admin/clients/secret'), SAME_ORIGIN);
      t.equal(rotated.statusCode, 200);
      const newSecret = secretOn(rotated.body) as string;
      t.not(newSecret, secret);
      t.equal((await tokenRequest(app, 'nightly', secret, { grant_type: 'client_credentials' })).statusCode, 401, 'the old secret');
      t.equal((await tokenRequest(app, 'nightly', newSecret, { grant_type: 'client_credentials' })).statusCode, 200, 'the new one');

      for (const path of ['/admin/clients', '/admin/clients/edit?client_id=nightly', '/admin/clients/delete?client_id=nightly', '/admin']) {
        const again = await browser.get(path);
        t.equal(again.statusCode, 200, path);
        t.notMatch(again.body, secret, `${path}: the first secret never again`);
        t.notMatch(again.body, newSecret, `${path}: the second never again`);
      }
      t.notMatch(logText(), secret, 'in no log line');
      t.notMatch(logText(), newSecret, 'in no log line');

      const confirm = await browser.get('/admin/clients/delete?client_id=nightly');
      t.match(confirm.body, '<h1>Delete this client?</h1>');
      t.match(confirm.body, '<p><strong>Nightly export</strong> (<code>nightly</code>) is refused everywhere within a second');
      const deleted = await browser.post('/admin/clients/delete', formOn(confirm.body, '/admin/clients/delete'), SAME_ORIGIN);
      t.equal(deleted.statusCode, 303);
      t.equal(deleted.headers.location, '/admin/clients?notice=client-deleted');
      const refused = await tokenRequest(app, 'nightly', newSecret, { grant_type: 'client_credentials' });
      t.equal(refused.statusCode, 401);
      t.equal(refused.json().error, 'invalid_client');
      const changes = audit().filter((line) => line.event === 'admin.changed');
      t.same(
        changes.map((line) => [line.actor, line.id, line.action, line.fields]),
        [
          [{ sub: 'root' }, 'nightly', 'created', createdFields],
          [{ sub: 'root' }, 'nightly', 'updated', ['scope']],
          [{ sub: 'root' }, 'nightly', 'secret_rotated', ['client_secret']],
          [{ sub: 'root' }, 'nightly', 'deleted', []],
        ],
      );
    });

    t.test('problems of the form: the form again (400), its values kept, each problem next to its field', async (t) => {
      const { app } = await server(t);
      const { browser, page } = await signedInAt(app, '/admin/clients/new', ROOT);
      const form = {
        ...formOn(page.body, '/admin/clients/new'),
        client_id: 'web-app',
        grant_types: ['authorization_code', 'refresh_token'],
        redirect_uris: 'http://app.example.com/callback',
        token_endpoint_auth_method: 'client_secret_basic',
      };
      const res = await browser.post('/admin/clients/new', form, SAME_ORIGIN);
      t.equal(res.statusCode, 400);
      t.match(res.headers, { 'cache-control': 'no-store' });
      t.match(res.body, '<div class="error" role="alert"><p>Nothing was saved: correct the fields marked below.</p></div>');
      t.match(
        res.body,
        /<textarea id="redirect_uris" name="redirect_uris" [^>]*aria-describedby="redirect_uris-hint redirect_uris-error" aria-invalid="true" rows="3">http:\/\/app\.example\.com\/callback<\/textarea>/,
      );
      t.match(res.body, /<p class="field-error" id="redirect_uris-error">[^<]*https[^<]*<\/p>/);
      t.match(res.body, 'value="web-app"');
      t.match(res.body, 'name="grant_types" value="refresh_token" checked');
      const taken = await browser.post(
        '/admin/clients/new',
        { ...form, client_id: 'photos', redirect_uris: 'https://app.example.com/cb' },
        SAME_ORIGIN,
      );
      t.equal(taken.statusCode, 409, 'an id of the file');
      t.equal((await browser.get('/admin/clients?source=admin')).body.includes('No client matches.'), true, 'nothing created');
      const none = await browser.post('/admin/clients/new', { ...form, grant_types: [] }, SAME_ORIGIN);
      t.equal(none.statusCode, 400, 'no grant type');
      t.match(none.body, /<fieldset class="field choices" aria-describedby="grant_types-error">/);
    });

    t.test('a session without admin:write reads the pages, and every change is refused: nothing changes', async (t) => {
      const { app, clock, audit } = await server(t);
      const { browser, page } = await signedInAt(app, '/admin/clients/new', ROOT);
      const csrf = formOn(page.body, '/admin/clients/new').csrf_token as string;
      await readOnlySession(app, browser, clock, ROOT);
      t.equal((await browser.get('/admin/clients')).statusCode, 200, 'admin:read reads');
      const res = await browser.post('/admin/clients/new', { csrf_token: csrf, client_id: 'sneaky', ...SERVICE }, SAME_ORIGIN);
      t.equal(res.statusCode, 403);
      t.match(res.body, '<h1>Your account is not an administrator of this server</h1>');
      t.equal((await browser.get('/admin/clients/edit?client_id=sneaky')).statusCode, 404, 'nothing created');
      t.same(
        audit().filter((line) => line.event === 'admin.changed'),
        [],
      );
    });

    t.test('a dynamically registered client: listed read-only, deleted for cleanup', async (t) => {
      const { app, audit } = await server(t);
      const registered = await app.inject({
        method: 'POST',
        url: '/oauth2/register',
        payload: { redirect_uris: ['https://app.example.com/cb'], token_endpoint_auth_method: 'none', client_name: 'Self-made' },
      });
      const clientId = registered.json().client_id as string;
      const { browser, page } = await signedInAt(app, '/admin/clients?source=registration', ROOT);
      t.match(page.body, `<code>${clientId}</code></a></td><td>Self-made</td>\n<td>Registered (RFC 7591)</td>`);
      const view = await browser.get(`/admin/clients/edit?client_id=${clientId}`);
      t.notMatch(view.body, /<form [^>]*action="\/admin\/clients\/edit"/, 'no edit form');
      t.equal((await browser.get(`/admin/clients/secret?client_id=${clientId}`)).statusCode, 409, 'no new secret');
      const confirm = await browser.get(`/admin/clients/delete?client_id=${clientId}`);
      t.match(confirm.body, 'The client registered itself (RFC 7591); deleting it cleans it up.');
      const deleted = await browser.post('/admin/clients/delete', formOn(confirm.body, '/admin/clients/delete'), SAME_ORIGIN);
      t.equal(deleted.statusCode, 303);
      t.match((await browser.get('/admin/clients?source=registration')).body, 'No client matches.');
      t.match(
        audit().find((line) => line.event === 'admin.changed'),
        { actor: { sub: 'root' }, id: clientId, action: 'deleted' },
      );
    });
  });
}

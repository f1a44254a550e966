import type { Test } from 'tap';
import { PHOTOS_API, ROOT, formOn, signedInAt } from '../helpers/console.js';
import { consoleTestServer } from '../helpers/console-apps.js';
import { READER, readOnlySession, SAME_ORIGIN } from '../helpers/console-entries.js';
import type { OpenStore } from '../helpers/stores.js';

/**
 * The console's protected resources through inject(), on a store: the file's read-only with
 * their file, one added (then offered to clients at the token endpoint), edited (a stale edit
 * refused), deleted after a confirmation; the form's problems next to its fields; CSRF and
 * admin:write checked first; every change audited with the person.
 */

const REPORTS = 'https://reports.example.com/';

export function consoleResourcesSuite(t: Test, name: string, open: OpenStore): void {
  t.test(`the console's resources (${name})`, async (t) => {
    const server = async (t: Test) => consoleTestServer(t, open, {}, [READER]);

    t.test('the list and a file resource: read-only, naming its file; its changes refused (409)', async (t) => {
      const { app } = await server(t);
      const { browser, page } = await signedInAt(app, '/admin/resources', ROOT);
      t.equal(page.statusCode, 200);
      t.match(page.headers, { 'cache-control': 'no-store', 'content-type': 'text/html; charset=utf-8' });
      t.match(page.body, '<a href="/admin/resources" aria-current="page">Resources</a>');
      t.match(
        page.body,
        `<tr><td><a href="/admin/resources/edit?resource=https%3A%2F%2Fapi.photos.example.com%2F"><code>${PHOTOS_API}</code></a></td><td>Acme Photos API</td>\n<td><code>photos:read photos:write</code></td><td>File: <code>RESOURCES_FILE</code></td><td>Read-only</td></tr>`,
      );
      const view = await browser.get(`/admin/resources/edit?resource=${encodeURIComponent(PHOTOS_API)}`);
      t.equal(view.statusCode, 200);
      t.match(view.body, '<p>Declared in <code>RESOURCES_FILE</code>: it is read-only here, change it in that file.</p>');
      t.notMatch(view.body, /<form [^>]*action="\/admin\/resources\//, 'no form');
      t.equal((await browser.get(`/admin/resources/delete?resource=${encodeURIComponent(PHOTOS_API)}`)).statusCode, 409);
      const csrf = formOn(view.body, '/admin/sign-out').csrf_token as string;
      const refused = await browser.post(
        '/admin/resources/delete',
        { csrf_token: csrf, resource: PHOTOS_API, etag: '"file-x"' },
        SAME_ORIGIN,
      );
      t.equal(refused.statusCode, 409);
    });

    t.test('add, edit (a stale edit refused), delete: each audited with the person; the problems next to their fields', async (t) => {
      const { app, audit } = await server(t);
      const { browser, page } = await signedInAt(app, '/admin/resources/new', ROOT);
      const fields = formOn(page.body, '/admin/resources/new');
      const withoutToken = { resource: REPORTS, name: 'Reports API', scope: 'reports:read', access_token_ttl: '' };
      const form = { ...fields, ...withoutToken };

      const bad = await browser.post(
        '/admin/resources/new',
        { ...form, resource: 'https://reports.example.com/#x', access_token_ttl: 'soon' },
        SAME_ORIGIN,
      );
      t.equal(bad.statusCode, 400);
      t.match(
        bad.body,
        /<input id="resource" name="resource" [^>]*aria-invalid="true" type="text" value="https:\/\/reports\.example\.com\/#x">/,
      );
      t.match(bad.body, /<p class="field-error" id="resource-error">[^<]+<\/p>/);
      t.match(bad.body, /<p class="field-error" id="access_token_ttl-error">[^<]+<\/p>/);
      t.match(bad.body, 'value="soon"', 'the values kept');

      t.equal((await browser.post('/admin/resources/new', withoutToken, SAME_ORIGIN)).statusCode, 403, 'no CSRF token');
      t.equal((await browser.get(`/admin/resources/edit?resource=${encodeURIComponent(REPORTS)}`)).statusCode, 404, 'nothing added');

      const created = await browser.post('/admin/resources/new', form, SAME_ORIGIN);
      t.equal(created.statusCode, 303);
      t.equal(created.headers.location, '/admin/resources/edit?resource=https%3A%2F%2Freports.example.com%2F&notice=resource-created');
      const edit = await browser.get(created.headers.location as string);
      t.match(edit.body, '<p class="notice" role="status">The resource was added.</p>');
      const editFields = formOn(edit.body, '/admin/resources/edit');
      t.same(Object.keys(editFields).sort(), ['csrf_token', 'etag']);
      const changed = {
        ...editFields,
        resource: REPORTS,
        name: 'Reports API',
        scope: 'reports:read reports:write',
        access_token_ttl: '600',
      };
      const saved = await browser.post('/admin/resources/edit', changed, SAME_ORIGIN);
      t.equal(saved.statusCode, 303);
      t.equal(saved.headers.location, '/admin/resources/edit?resource=https%3A%2F%2Freports.example.com%2F&notice=resource-saved');
      const now = await browser.get(saved.headers.location as string);
      t.match(now.body, 'value="reports:read reports:write"');
      t.match(now.body, 'value="600"');
      const stale = await browser.post('/admin/resources/edit', { ...changed, name: 'Old' }, SAME_ORIGIN);
      t.equal(stale.statusCode, 409);
      t.match(stale.body, 'Someone changed this entry since you opened this form, so nothing was saved');
      t.match((await browser.get(saved.headers.location as string)).body, 'value="Reports API"', 'nothing overwritten');

      const confirm = await browser.get(`/admin/resources/delete?resource=${encodeURIComponent(REPORTS)}`);
      t.match(confirm.body, '<h1>Delete this resource?</h1>');
      t.match(confirm.body, `No new token is issued for <code>${REPORTS}</code>`);
      const deleted = await browser.post('/admin/resources/delete', formOn(confirm.body, '/admin/resources/delete'), SAME_ORIGIN);
      t.equal(deleted.statusCode, 303);
      t.equal(deleted.headers.location, '/admin/resources?notice=resource-deleted');
      t.notMatch((await browser.get('/admin/resources')).body, REPORTS);
      t.same(
        audit()
          .filter((line) => line.event === 'admin.changed')
          .map((line) => [line.actor, line.entity, line.id, line.action, line.fields]),
        [
          [{ sub: 'root' }, 'resource', REPORTS, 'created', ['name', 'resource', 'scope']],
          [{ sub: 'root' }, 'resource', REPORTS, 'replaced', ['access_token_ttl', 'scope']],
          [{ sub: 'root' }, 'resource', REPORTS, 'deleted', []],
        ],
      );
    });

    t.test('a session without admin:write: every change refused, nothing changes', async (t) => {
      const { app, clock, audit } = await server(t);
      const { browser, page } = await signedInAt(app, '/admin/resources/new', ROOT);
      const csrf = formOn(page.body, '/admin/resources/new').csrf_token as string;
      await readOnlySession(app, browser, clock, ROOT);
      const res = await browser.post('/admin/resources/new', { csrf_token: csrf, resource: REPORTS, scope: 'reports:read' }, SAME_ORIGIN);
      t.equal(res.statusCode, 403);
      t.equal((await browser.get(`/admin/resources/edit?resource=${encodeURIComponent(REPORTS)}`)).statusCode, 404, 'nothing added');
      t.same(
        audit().filter((line) => line.event === 'admin.changed'),
        [],
      );
    });
  });
}

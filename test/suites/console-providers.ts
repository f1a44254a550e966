import { once } from 'node:events';
import { createServer } from 'node:http';
import type { Test } from 'tap';
import { ALICE } from '../helpers/authorize-fixtures.js';
import { consoleTestServer } from '../helpers/console-apps.js';
import { formOn, ROOT, signedInAt } from '../helpers/console.js';
import { ISSUER } from '../helpers/server.js';
import type { OpenStore } from '../helpers/stores.js';

/**
 * The console's identity providers through inject(), on a store: each with the redirect URI
 * to register and whether its discovery answers (a real discovery document on a loopback
 * port, and a port where nothing listens); a new provider (problems next to the fields, the
 * secret never on a page nor in a log), saved again with its secret kept, deleted after a
 * confirmation; IDENTITY_PROVIDERS_FILE's entries read-only; CSRF and the role checked; every
 * change the admin API's audit event with the person as actor.
 */

const SAME_ORIGIN = { origin: ISSUER, 'sec-fetch-site': 'same-origin' };
const SECRET = 'upstream-client-secret-do-not-show-0123456789';
const FILE_SECRET = 'file-provider-secret-do-not-show-9876543210';

/** An OpenID provider's discovery document on 127.0.0.1; its issuer. */
async function discoveryServer(t: Test): Promise<string> {
  const server = createServer((request, response) => {
    const issuer = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    if (request.url !== '/.well-known/openid-configuration') return void response.writeHead(404).end();
    const document = {
      issuer,
      authorization_endpoint: `${issuer}/authorize`,
      token_endpoint: `${issuer}/token`,
      jwks_uri: `${issuer}/jwks`,
    };
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(document));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => server.close());
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

/** A port where nothing listens. */
async function closedPort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  await new Promise((done) => server.close(done));
  return port;
}

export function consoleProvidersSuite(t: Test, name: string, open: OpenStore): void {
  t.test(`the console's identity providers (${name})`, async (t) => {
    const issuer = await discoveryServer(t);
    const fileProvider = { id: 'corp', type: 'oidc', name: 'Corp SSO', issuer, client_id: 'as', client_secret: FILE_SECRET };
    const server = await consoleTestServer(t, open, { ENTRIES_ENCRYPTION_KEY: 'entries-encryption-key-0123456789abcdef' }, [], {
      logLevel: 'trace',
      providers: [fileProvider],
    });
    const { app, audit, logText, admin } = server;
    const { browser, page: list } = await signedInAt(app, '/admin/providers', ROOT);

    t.test('the list: the redirect URI to register, and whether discovery answers', async (t) => {
      t.equal(list.statusCode, 200);
      t.match(list.headers, { 'cache-control': 'no-store' });
      t.match(
        list.body,
        `<tr><td><a href="/admin/providers/provider?id=corp">Corp SSO</a></td><td><code>corp</code></td><td>OpenID Connect</td>\n<td>File <code>IDENTITY_PROVIDERS_FILE</code></td><td><code>${ISSUER}/oauth2/upstream/corp/callback</code></td><td>Answers (checked `,
      );
      const page = await browser.get('/admin/providers/provider?id=corp');
      t.match(page.body, `<input id="redirect_uri" type="text" readonly value="${ISSUER}/oauth2/upstream/corp/callback"`);
      t.match(page.body, 'This entry is declared in <code>IDENTITY_PROVIDERS_FILE</code>: it is read-only here, change it in the file.');
      t.notMatch(page.body, /<form method="post" action="\/admin\/providers\//, 'no change offered');
    });

    t.test('a new provider: CSRF checked, problems next to the fields, the secret never shown; its discovery checked', async (t) => {
      const form = await browser.get('/admin/providers/new?type=oidc');
      t.equal(form.statusCode, 200);
      t.match(form.body, '<h1>New OpenID Connect provider</h1>');
      const fields = formOn(form.body, '/admin/providers/new');
      const sent: Record<string, string> = {
        ...fields,
        id: 'partner',
        name: 'Partner',
        client_id: 'as-at-partner',
        client_secret: SECRET,
        issuer: 'not a url',
        admin_rule: '{"groups": ',
      };
      const { csrf_token: _csrf, ...withoutToken } = sent;
      t.equal((await browser.post('/admin/providers/new', withoutToken, SAME_ORIGIN)).statusCode, 403);
      const invalidJson = await browser.post('/admin/providers/new', sent, SAME_ORIGIN);
      t.equal(invalidJson.statusCode, 400);
      t.match(invalidJson.body, /<p class="field-error" id="admin_rule-error">is not JSON: [^<]+<\/p>/);
      const invalid = await browser.post('/admin/providers/new', { ...sent, admin_rule: '{"groups": "admins"}' }, SAME_ORIGIN);
      t.equal(invalid.statusCode, 400);
      t.match(invalid.body, '<p class="field-error" id="issuer-error">must be an https URL</p>');
      t.match(invalid.body, 'value="not a url"', 'the values kept');
      t.match(invalid.body, '{&#34;groups&#34;: &#34;admins&#34;}</textarea>');
      t.notMatch(invalid.body, SECRET, 'the secret is not written back');
      const port = await closedPort();
      const created = await browser.post(
        '/admin/providers/new',
        { ...sent, issuer: `http://127.0.0.1:${port}`, admin_rule: '{"groups": "admins"}' },
        SAME_ORIGIN,
      );
      t.equal(created.statusCode, 303);
      t.equal(created.headers.location, '/admin/providers/provider?id=partner&notice=provider-created');
      const page = await browser.get(created.headers.location as string);
      t.match(page.body, '<p class="notice" role="status">The identity provider was created.</p>');
      t.match(page.body, '<strong>Does not answer</strong>');
      t.match(page.body, 'A secret is kept (never shown). Leave empty to keep it.');
      t.match(page.body, '{\n  &#34;groups&#34;: &#34;admins&#34;\n}</textarea>');
      t.match(audit().at(-1), {
        actor: { sub: 'root' },
        entity: 'provider',
        id: 'partner',
        action: 'created',
        fields: [
          'allow_private_addresses',
          'client_id',
          'client_secret',
          'end_session',
          'id',
          'id_jag',
          'issuer',
          'keep_tokens',
          'name',
          'roles',
          'type',
        ],
      });

      const edit = formOn(page.body, '/admin/providers/edit');
      const saved = await browser.post(
        '/admin/providers/edit',
        { ...edit, name: 'Partner Inc.', client_id: 'as-at-partner', issuer, admin_rule: '{"groups": "admins"}' },
        SAME_ORIGIN,
      );
      t.equal(saved.statusCode, 303);
      t.equal(saved.headers.location, '/admin/providers/provider?id=partner&notice=provider-saved');
      t.match(audit().at(-1), {
        actor: { sub: 'root' },
        entity: 'provider',
        id: 'partner',
        action: 'replaced',
        fields: ['issuer', 'name'],
      });
      t.match((await admin.api.providers.get('partner')).view, { name: 'Partner Inc.', client_secret_set: true }, 'the secret kept');
      const again = await browser.get('/admin/providers/provider?id=partner&check=now');
      t.match(again.body, 'Answers (checked ', 'checked again: it answers now');
      const listed = await browser.get('/admin/providers');
      t.notMatch(`${list.body}${listed.body}${page.body}${again.body}`, new RegExp(`${SECRET}|${FILE_SECRET}|client_secret_sealed`));
      t.notMatch(logText(), new RegExp(`${SECRET}|${FILE_SECRET}`), 'no secret in any log line (trace)');
    });

    t.test('deleted after a confirmation naming it; a file entry is not', async (t) => {
      const confirm = await browser.get('/admin/providers/delete?id=partner');
      t.equal(confirm.statusCode, 200);
      t.match(confirm.body, '<h1>Delete Partner Inc.?</h1>');
      t.match(confirm.body, 'The provider <strong>Partner Inc.</strong> (<code>partner</code>) is deleted');
      const done = await browser.post('/admin/providers/delete', formOn(confirm.body, '/admin/providers/delete'), SAME_ORIGIN);
      t.equal(done.headers.location, '/admin/providers?notice=provider-deleted');
      t.match(audit().at(-1), { actor: { sub: 'root' }, entity: 'provider', id: 'partner', action: 'deleted', fields: [] });
      t.equal((await browser.get('/admin/providers/provider?id=partner')).statusCode, 404);
      const csrf = formOn(confirm.body, '/admin/sign-out').csrf_token as string;
      const file = await browser.post('/admin/providers/delete', { csrf_token: csrf, id: 'corp' }, SAME_ORIGIN);
      t.equal(file.statusCode, 409);
      t.match(file.body, 'identity provider &#34;corp&#34; is declared in IDENTITY_PROVIDERS_FILE: change it there');
      const edit = await browser.post(
        '/admin/providers/edit',
        { csrf_token: csrf, type: 'oidc', id: 'corp', name: 'Evil', client_id: 'x', issuer },
        SAME_ORIGIN,
      );
      t.equal(edit.statusCode, 409);
      t.match(
        edit.body,
        '<p class="error" role="alert">identity provider &#34;corp&#34; is declared in IDENTITY_PROVIDERS_FILE: change it there</p>',
      );
      t.equal((await admin.api.providers.get('corp')).view.name, 'Corp SSO', 'nothing changed');
    });

    t.test('a person without the role changes nothing', async (t) => {
      const { browser: alice, page } = await signedInAt(app, '/admin/providers', ALICE);
      t.equal(page.statusCode, 403);
      const csrf = formOn(page.body, '/admin/sign-out').csrf_token as string;
      const sent = { csrf_token: csrf, type: 'oidc', id: 'evil', name: 'Evil', client_id: 'x', client_secret: 'y', issuer };
      t.equal((await alice.post('/admin/providers/new', sent, SAME_ORIGIN)).statusCode, 403);
      t.equal((await admin.api.providers.list({ limit: 50 })).items.length, 1, 'nothing created');
    });
  });
}

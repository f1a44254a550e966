import type { Test } from 'tap';
import { consoleTestServer } from '../helpers/console-apps.js';
import { formOn, ROOT, signedInAt } from '../helpers/console.js';
import { ISSUER } from '../helpers/server.js';
import type { OpenStore } from '../helpers/stores.js';

/**
 * The console's workload trusts through inject(), on a store: the JSON rules in a textarea,
 * validated by WORKLOAD_TRUSTS_FILE's schema, their problems next to the field with their
 * path; created, saved, deleted after a confirmation, each the admin API's audit event with
 * the person as actor; the file's trusts read-only.
 */

const SAME_ORIGIN = { origin: ISSUER, 'sec-fetch-site': 'same-origin' };
const RULES = [{ sub: 'system:serviceaccount:ci:*', resources: ['https://api.photos.example.com/'], scope: 'photos:read' }];

export function consoleWorkloadTrustsSuite(t: Test, name: string, open: OpenStore): void {
  t.test(`the console's workload trusts (${name})`, async (t) => {
    const fileTrust = { id: 'cluster', issuer: 'https://cluster.example.com', jwks_uri: 'https://cluster.example.com/keys', rules: RULES };
    const { app, audit, admin } = await consoleTestServer(t, open, {}, [], { workloads: [fileTrust] });
    const { browser, page: list } = await signedInAt(app, '/admin/workload-trusts', ROOT);

    t.test('the list; a trust of the file is read-only', async (t) => {
      t.equal(list.statusCode, 200);
      t.match(
        list.body,
        '<tr><td><a href="/admin/workload-trusts/trust?id=cluster"><code>cluster</code></a></td><td><code>https://cluster.example.com</code></td>\n<td>File <code>WORKLOAD_TRUSTS_FILE</code></td><td>JWK Set URL</td><td class="number">1</td></tr>',
      );
      const page = await browser.get('/admin/workload-trusts/trust?id=cluster');
      t.match(page.body, 'This entry is declared in <code>WORKLOAD_TRUSTS_FILE</code>: it is read-only here, change it in the file.');
      t.match(page.body, '&#34;scope&#34;: &#34;photos:read&#34;', 'its rules shown');
      t.notMatch(page.body, /<form method="post" action="\/admin\/workload-trusts\//);
      const csrf = formOn(page.body, '/admin/sign-out').csrf_token as string;
      const edit = await browser.post(
        '/admin/workload-trusts/edit',
        { csrf_token: csrf, id: 'cluster', issuer: 'https://x.example', rules: '[]' },
        SAME_ORIGIN,
      );
      t.equal(edit.statusCode, 409, 'a file entry cannot change here');
      t.match(edit.body, 'workload trust &#34;cluster&#34; is declared in WORKLOAD_TRUSTS_FILE: change it there');
    });

    t.test('the rules as JSON: their problems next to the field, by the file’s schema; then created, saved, deleted', async (t) => {
      const form = await browser.get('/admin/workload-trusts/new');
      const fields = { ...formOn(form.body, '/admin/workload-trusts/new'), id: 'ci', issuer: 'https://ci.example.com' };
      const notJson = await browser.post('/admin/workload-trusts/new', { ...fields, rules: '[{' }, SAME_ORIGIN);
      t.equal(notJson.statusCode, 400);
      t.match(
        notJson.body,
        /<textarea id="rules" name="rules" rows="10" spellcheck="false" autocapitalize="off" aria-invalid="true" aria-describedby="rules-hint rules-error">\[\{<\/textarea><p class="field-error" id="rules-error">is not JSON: /,
      );
      const badRule = JSON.stringify([{ sub: 'x', resources: ['https://api.photos.example.com/'] }]);
      const invalid = await browser.post('/admin/workload-trusts/new', { ...fields, rules: badRule }, SAME_ORIGIN);
      t.equal(invalid.statusCode, 400);
      t.match(invalid.body, /<p class="field-error" id="rules-error">0\.scope: [^<]+<\/p>/);
      t.match(invalid.body, 'value="https://ci.example.com"', 'the values kept');
      const sameIssuer = await browser.post(
        '/admin/workload-trusts/new',
        { ...fields, issuer: 'https://cluster.example.com', rules: JSON.stringify(RULES) },
        SAME_ORIGIN,
      );
      t.equal(sameIssuer.statusCode, 409, 'one trust per issuer: the form again');
      t.match(sameIssuer.body, 'the issuer https://cluster.example.com is trusted by trust &#34;cluster&#34; of WORKLOAD_TRUSTS_FILE');
      t.same((await admin.api.workloadTrusts.list({ limit: 50, source: 'admin' })).items, [], 'nothing created');

      const created = await browser.post(
        '/admin/workload-trusts/new',
        { ...fields, rules: JSON.stringify(RULES), require_jti: 'true' },
        SAME_ORIGIN,
      );
      t.equal(created.statusCode, 303);
      t.equal(created.headers.location, '/admin/workload-trusts/trust?id=ci&notice=trust-created');
      t.match(audit().at(-1), {
        actor: { sub: 'root' },
        entity: 'workload_trust',
        id: 'ci',
        action: 'created',
        fields: ['allow_private_addresses', 'id', 'issuer', 'require_jti', 'rules'],
      });
      const page = await browser.get(created.headers.location as string);
      t.match(page.body, '<input id="require_jti" name="require_jti" type="checkbox" value="true" checked>');
      const edit = formOn(page.body, '/admin/workload-trusts/edit');
      const rules = JSON.stringify([{ ...RULES[0], scope: 'photos:read photos:write' }]);
      const saved = await browser.post(
        '/admin/workload-trusts/edit',
        { ...edit, issuer: 'https://ci.example.com', rules, require_jti: 'true' },
        SAME_ORIGIN,
      );
      t.equal(saved.headers.location, '/admin/workload-trusts/trust?id=ci&notice=trust-saved');
      t.match(audit().at(-1), { actor: { sub: 'root' }, entity: 'workload_trust', id: 'ci', action: 'replaced', fields: ['rules'] });
      const confirm = await browser.get('/admin/workload-trusts/delete?id=ci');
      t.match(confirm.body, '<h1>Delete ci?</h1>');
      const done = await browser.post('/admin/workload-trusts/delete', formOn(confirm.body, '/admin/workload-trusts/delete'), SAME_ORIGIN);
      t.equal(done.headers.location, '/admin/workload-trusts?notice=trust-deleted');
      t.match(audit().at(-1), { actor: { sub: 'root' }, entity: 'workload_trust', id: 'ci', action: 'deleted' });
    });
  });
}

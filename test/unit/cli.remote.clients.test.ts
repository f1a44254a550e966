import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { runCommand } from '../helpers/cli.js';
import { expectTwoPages, FakeAdminApi, problem } from '../helpers/fake-admin-api.js';
import { tempDir } from '../helpers/keys.js';

/**
 * `clients … --url`: the requests the operator command sends to the admin API and the lines
 * it prints for the answers. The clients routes are not on this branch, so a stand-in
 * answers here (test/helpers/fake-admin-api.ts), for the wire format only; the real
 * routes are exercised end to end by test/e2e/cli.remote.test.ts.
 */

const TOKEN = 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJvcGVyYXRvciJ9.c2lnbmF0dXJl';

t.test('clients through the admin API', async (t) => {
  const api = await FakeAdminApi.start(t);
  const env = { ADMIN_URL: api.url, ADMIN_TOKEN: TOKEN };
  const clients = (args: string[], extra: Record<string, string> = {}) => runCommand(['clients', ...args], { env: { ...env, ...extra } });

  t.test('add: POST /admin/v1/clients with the metadata; the secret of the answer printed once', async (t) => {
    api.answer({
      status: 201,
      body: { client_id: 'reports', client_secret: 'the-new-secret', scope: 'read', source: 'admin', created_at: 1, updated_at: 1 },
    });
    const run = await clients(['add', '--id', 'reports', '--name', 'Reports', '--scope', 'read', '--grant', 'device_code']);
    t.same(
      [run.code, run.stdout, run.stderr],
      [0, `added client reports to ${api.url}\nclient_secret: the-new-secret\n(shown once: only its hash is stored)\n`, ''],
    );
    t.same(api.sent(), [
      {
        method: 'POST',
        url: '/admin/v1/clients',
        json: {
          client_id: 'reports',
          client_name: 'Reports',
          redirect_uris: [],
          grant_types: ['urn:ietf:params:oauth:grant-type:device_code'],
          scope: 'read',
          token_endpoint_auth_method: 'client_secret_basic',
        },
      },
    ]);
    const [request] = api.requests;
    t.equal(request?.headers.authorization, `Bearer ${TOKEN}`);
    t.equal(request?.headers['content-type'], 'application/json');
    t.equal(request?.headers.accept, 'application/json, application/problem+json');
  });

  t.test('add of a public client: no secret line; the options of the file only are refused', async (t) => {
    api.answer({ status: 201, body: { client_id: 'spa', token_endpoint_auth_method: 'none', source: 'admin' } });
    const run = await clients([
      'add',
      '--id',
      'spa',
      '--auth-method',
      'none',
      '--grant',
      'authorization_code',
      '--redirect-uri',
      'https://spa.example/cb',
    ]);
    t.same([run.code, run.stdout, run.stderr], [0, `added client spa to ${api.url}\n`, '']);
    api.answer();
    const refused = await clients(['add', '--id', 'x', '--file', 'clients.json', '--users-file', 'users.json']);
    t.equal(refused.code, 2);
    t.equal(refused.stderr.split('\n')[0], 'error: --file, --users-file: for the file only, not through the admin API (ADMIN_URL is set)');
    t.same(api.requests, [], 'nothing sent');
  });

  t.test('list: every page (limit 500, then cursor=next); the lines of the file variant with source=', async (t) => {
    api.answer(
      {
        status: 200,
        body: {
          items: [
            {
              client_id: 'service',
              token_endpoint_auth_method: 'client_secret_basic',
              grant_types: ['client_credentials'],
              scope: 'read write',
              source: 'file',
            },
            {
              client_id: 'web',
              client_name: 'The web app',
              grant_types: ['authorization_code', 'refresh_token'],
              redirect_uris: ['https://app.example/cb'],
              scope: 'openid',
              source: 'admin',
              disabled: true,
              created_at: 1,
              updated_at: 2,
            },
          ],
          next: 'Y3Vyc29y',
        },
      },
      {
        status: 200,
        body: {
          items: [
            {
              client_id: 'signer',
              token_endpoint_auth_method: 'private_key_jwt',
              jwks: { keys: [{ kid: 'k1', kty: 'EC' }, { kty: 'EC' }] },
              token_endpoint_auth_signing_alg: 'ES256',
              grant_types: ['client_credentials'],
              source: 'registration',
            },
          ],
        },
      },
    );
    expectTwoPages(t, api, await clients(['list']), '/admin/v1/clients', 'Y3Vyc29y', [
      'service  auth=client_secret_basic  grants=client_credentials  scope="read write"  source=file',
      'web  auth=client_secret_basic  grants=authorization_code,refresh_token  scope=openid  response_types=code  redirect_uris=https://app.example/cb  name="The web app"  disabled  source=admin',
      'signer  auth=private_key_jwt  jwks=k1,#2  signing_alg=ES256  grants=client_credentials  scope=""  source=registration',
    ]);
  });

  t.test('list --source --grant --search: the filters of the API (grant_type, q)', async (t) => {
    api.answer({ status: 200, body: { items: [] } });
    const run = await clients(['list', '--source', 'registration', '--grant', 'device_code', '--search', 'mcp client']);
    t.same([run.code, run.stdout, run.stderr], [0, '', '']);
    t.same(api.sent(), [
      {
        method: 'GET',
        url: '/admin/v1/clients?source=registration&grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Adevice_code&q=mcp+client&limit=500',
      },
    ]);
    const bad = await clients(['list', '--source', 'elsewhere']);
    t.same([bad.code, bad.stderr.split('\n')[0]], [2, 'error: --source must be one of file, admin, registration']);
    const fileOnly = await runCommand(['clients', 'list', '--source', 'file', '--file', 'clients.json']);
    t.same(
      [fileOnly.code, fileOnly.stderr.split('\n')[0]],
      [2, 'error: --source: only with --url URL (or ADMIN_URL), through the admin API'],
    );
  });

  t.test('remove: DELETE /admin/v1/clients/{client_id}; a 404 and a 409 problem are one line, exit 1', async (t) => {
    api.answer({ status: 204 });
    const run = await clients(['remove', 'a client/1']);
    t.same([run.code, run.stdout, run.stderr], [0, `removed client a client/1 from ${api.url}\n`, '']);
    t.same(api.sent(), [{ method: 'DELETE', url: '/admin/v1/clients/a%20client%2F1' }]);

    api.answer(problem(404, 'not-found', 'Not found', 'no client "nope"'));
    const unknown = await clients(['remove', 'nope']);
    t.same([unknown.code, unknown.stdout, unknown.stderr], [1, '', 'error: the admin API answered 404 not-found: no client "nope"\n']);

    api.answer(
      problem(
        409,
        'conflict-file-entry',
        'The entry comes from a file and is read-only here',
        'client "service" is declared in /etc/oauth/clients.json: change it there',
      ),
    );
    const fromFile = await clients(['remove', 'service']);
    t.same(
      [fromFile.code, fromFile.stdout, fromFile.stderr],
      [
        1,
        '',
        'error: the admin API answered 409 conflict-file-entry: client "service" is declared in /etc/oauth/clients.json: change it there\n',
      ],
    );
  });

  t.test('rotate-secret: POST /admin/v1/clients/{client_id}/secret, the new secret printed once', async (t) => {
    api.answer({ status: 200, body: { client_id: 'reports', client_secret: 'newer-secret', source: 'admin' } });
    const run = await clients(['rotate-secret', 'reports']);
    t.same(
      [run.code, run.stdout, run.stderr],
      [0, `new secret for client reports at ${api.url}\nclient_secret: newer-secret\n(shown once: only its hash is stored)\n`, ''],
    );
    t.same(api.sent(), [{ method: 'POST', url: '/admin/v1/clients/reports/secret' }]);
    t.equal(api.requests[0]?.headers['content-type'], undefined, 'no body, no content type');
  });

  t.test('a validation problem: its detail, and the field problems the detail leaves out', async (t) => {
    api.answer(
      problem(400, 'validation', 'The request is not valid', 'the client is not valid: redirect_uris.0: must not have a fragment', {
        errors: [
          { field: 'redirect_uris.0', problem: 'must not have a fragment' },
          { field: 'scope', problem: 'must be space-separated scope tokens' },
        ],
      }),
    );
    const run = await clients(['add', '--id', 'bad', '--grant', 'authorization_code', '--redirect-uri', 'https://a.example/#x']);
    t.same(
      [run.code, run.stdout, run.stderr],
      [
        1,
        '',
        'error: the admin API answered 400 validation: the client is not valid: redirect_uris.0: must not have a fragment (scope: must be space-separated scope tokens)\n',
      ],
    );
  });

  t.test('401 and 403: the problem on one line; the token never in the output', async (t) => {
    api.answer(problem(401, 'unauthorized', 'An access token for the admin API is required', 'the token has expired'));
    const expired = await clients(['list']);
    t.same(
      [expired.code, expired.stdout, expired.stderr],
      [1, '', 'error: the admin API answered 401 unauthorized: the token has expired\n'],
    );
    api.answer(
      problem(
        403,
        'insufficient-scope',
        'The access token lacks the scope this request needs',
        'this request needs the scope admin:write',
        {
          scope: 'admin:write',
        },
      ),
    );
    const readOnly = await clients(['remove', 'web']);
    t.same(
      [readOnly.code, readOnly.stdout, readOnly.stderr],
      [1, '', 'error: the admin API answered 403 insufficient-scope: this request needs the scope admin:write\n'],
    );
    for (const run of [expired, readOnly]) t.notOk(`${run.stdout}${run.stderr}`.includes(TOKEN));
  });

  t.test('--url and --token-file override ADMIN_URL and ADMIN_TOKEN; a trailing /admin/v1 is the same server', async (t) => {
    const dir = await tempDir(t);
    const tokenFile = join(dir, 'token');
    await writeFile(tokenFile, 'from-the-file\n', { mode: 0o600 });
    api.answer({ status: 200, body: { items: [] } });
    const run = await runCommand(['clients', 'list', '--url', `${api.url}/admin/v1/`, '--token-file', tokenFile], {
      env: { ADMIN_URL: 'https://elsewhere.example', ADMIN_TOKEN: TOKEN },
    });
    t.same([run.code, run.stdout, run.stderr], [0, '', '']);
    t.same([api.requests[0]?.url, api.requests[0]?.headers.authorization], ['/admin/v1/clients?limit=500', 'Bearer from-the-file']);
  });
});

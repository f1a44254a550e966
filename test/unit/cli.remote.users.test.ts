import t from 'tap';
import { UserPasswordSchema } from '../../src/admin/user-password.js';
import { runCommand } from '../helpers/cli.js';
import { expectTwoPages, FakeAdminApi, problem } from '../helpers/fake-admin-api.js';

/**
 * `users … --url`: the requests the operator command sends to the admin API and the lines
 * it prints. The users routes are not on this branch, so a stand-in answers here
 * (test/helpers/fake-admin-api.ts), for the wire format only; the real routes are
 * exercised end to end by test/e2e/cli.remote.test.ts.
 */

const TOKEN = 'users-test-token';

t.test('users through the admin API', async (t) => {
  const api = await FakeAdminApi.start(t);
  const env = { ADMIN_URL: api.url, ADMIN_TOKEN: TOKEN };
  const users = (args: string[], input?: string) => runCommand(['users', ...args], { env, ...(input === undefined ? {} : { input }) });

  t.test('add: POST /admin/v1/users with the password of standard input (the server hashes it)', async (t) => {
    api.answer({ status: 201, body: { sub: 'u-1', username: 'alice', roles: ['admin'], source: 'admin', created_at: 1, updated_at: 1 } });
    const run = await users(
      ['add', '--username', 'alice', '--sub', 'u-1', '--claim', 'email=alice@example.com', '--role', 'admin', '--role', 'admin'],
      'alice-password-1\nnot this line\n',
    );
    t.same([run.code, run.stdout, run.stderr], [0, `added user alice to ${api.url}\n`, '']);
    t.same(api.sent(), [
      {
        method: 'POST',
        url: '/admin/v1/users',
        json: { username: 'alice', password: 'alice-password-1', sub: 'u-1', claims: { email: 'alice@example.com' }, roles: ['admin'] },
      },
    ]);
  });

  t.test('add: the rules of standard input and of --role hold before anything is sent', async (t) => {
    api.answer();
    const short = await users(['add', '--username', 'bob'], 'short\n');
    t.same([short.code, short.stderr], [1, 'error: the password (read from standard input) must have at least 8 characters\n']);
    const none = await users(['add', '--username', 'bob']);
    t.same([none.code, none.stderr.split('\n')[0]], [2, 'error: no password on standard input (pipe it in; see --help)']);
    const role = await users(['add', '--username', 'bob', '--role', 'root'], 'bob-password-1\n');
    t.same([role.code, role.stderr.split('\n')[0]], [2, 'error: --role must be one of admin']);
    const clientsFile = await users(['add', '--username', 'bob', '--clients-file', 'clients.json'], 'bob-password-1\n');
    t.same(
      [clientsFile.code, clientsFile.stderr.split('\n')[0]],
      [2, 'error: --clients-file: for the file only, not through the admin API (ADMIN_URL is set)'],
    );
    t.same(api.requests, [], 'nothing sent');
  });

  t.test('list: every page; local and federated users, with their source', async (t) => {
    api.answer(
      {
        status: 200,
        body: {
          items: [
            { sub: 'alice', username: 'alice', claims: { email: 'a@example.com', name: 'Alice' }, roles: ['admin'], source: 'file' },
            { sub: 'u-2', username: 'bob smith', disabled: true, source: 'admin', created_at: 1, updated_at: 1 },
          ],
          next: 'c2Vjb25k',
        },
      },
      { status: 200, body: { items: [{ sub: 'fed_abc', source: 'federated', provider: 'github', last_sign_in: 1700000000 }] } },
    );
    expectTwoPages(t, api, await users(['list']), '/admin/v1/users', 'c2Vjb25k', [
      'alice  sub=alice  claims=email,name  roles=admin  source=file',
      '"bob smith"  sub=u-2  disabled  source=admin',
      'fed_abc  sub=fed_abc  provider=github  source=federated',
    ]);
  });

  t.test('remove, disable, enable, set-roles: by sub; PATCH is a JSON Merge Patch', async (t) => {
    const cases: [string[], string, { method: string; url: string; json?: unknown }][] = [
      [['remove', 'u 2'], 'removed user u 2 from', { method: 'DELETE', url: '/admin/v1/users/u%202' }],
      [['disable', 'fed_abc'], 'disabled user fed_abc at', { method: 'PATCH', url: '/admin/v1/users/fed_abc', json: { disabled: true } }],
      [['enable', 'fed_abc'], 'enabled user fed_abc at', { method: 'PATCH', url: '/admin/v1/users/fed_abc', json: { disabled: false } }],
      [
        ['set-roles', 'u-2', '--role', 'admin'],
        'set roles admin of user u-2 at',
        { method: 'PATCH', url: '/admin/v1/users/u-2', json: { roles: ['admin'] } },
      ],
      [['set-roles', 'u-2'], 'set roles (none) of user u-2 at', { method: 'PATCH', url: '/admin/v1/users/u-2', json: { roles: [] } }],
    ];
    for (const [args, line, request] of cases) {
      api.answer({ status: request.method === 'DELETE' ? 204 : 200, body: request.method === 'DELETE' ? undefined : { sub: args[1] } });
      const run = await users(args);
      t.same([run.code, run.stdout, run.stderr], [0, `${line} ${api.url}\n`, ''], args.join(' '));
      t.same(api.sent(), [request]);
      if (request.method === 'PATCH') t.equal(api.requests[0]?.headers['content-type'], 'application/merge-patch+json');
    }
  });

  t.test('set-password: PUT /admin/v1/users/{sub}/password with the shared body schema', async (t) => {
    api.answer({ status: 204 });
    const run = await users(['set-password', 'u-2'], 'a-new-password\n');
    t.same([run.code, run.stdout, run.stderr], [0, `new password for user u-2 at ${api.url}\n`, '']);
    t.same(api.sent(), [{ method: 'PUT', url: '/admin/v1/users/u-2/password', json: { password: 'a-new-password' } }]);
    t.same(UserPasswordSchema.parse(JSON.parse(api.requests[0]?.body ?? '')), { password: 'a-new-password' }, 'the route schema takes it');
    t.same(
      UserPasswordSchema.safeParse({ password: 'short', extra: 1 }).error?.issues.map((issue) => [issue.code, issue.message]),
      [
        ['custom', 'must have at least 8 characters'],
        ['unrecognized_keys', 'Unrecognized key: "extra"'],
      ],
    );
  });

  t.test('a user of a file: the 409 problem, exit 1', async (t) => {
    api.answer(
      problem(
        409,
        'conflict-file-entry',
        'The entry comes from a file and is read-only here',
        'user "alice" is declared in users.json: change it there',
      ),
    );
    const run = await users(['disable', 'alice']);
    t.same(
      [run.code, run.stdout, run.stderr],
      [1, '', 'error: the admin API answered 409 conflict-file-entry: user "alice" is declared in users.json: change it there\n'],
    );
  });
});

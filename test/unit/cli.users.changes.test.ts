import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { UserRegistry } from '../../src/users/registry.js';
import { runCommand } from '../helpers/cli.js';
import { tempDir } from '../helpers/keys.js';
import { cheapPasswordHash } from '../helpers/passwords.js';

/** `users disable|enable|set-password|set-roles <username>` and `users add --role` on USERS_FILE, and what `users list` shows of them. */

t.test('one change to one user of USERS_FILE', async (t) => {
  const dir = await tempDir(t);
  const file = join(dir, 'users.json');
  const bobHash = cheapPasswordHash('bob-password-1');
  await writeFile(file, JSON.stringify({ users: [{ username: 'bob', password_hash: bobHash, sub: 'u-bob' }] }));
  const env = { USERS_FILE: file };
  const users = (args: string[], input?: string) => runCommand(['users', ...args], { env, ...(input === undefined ? {} : { input }) });
  const entries = async () => (JSON.parse(await readFile(file, 'utf8')) as { users: Record<string, unknown>[] }).users;

  t.test('add --role admin: the role in the entry; list shows it', async (t) => {
    const run = await users(['add', '--username', 'alice', '--role', 'admin'], 'alice-password-1\n');
    t.same([run.code, run.stdout, run.stderr], [0, `added user alice to ${file}\n`, '']);
    t.same(Object.keys((await entries())[1] ?? {}), ['username', 'password_hash', 'roles']);
    t.same((await entries())[1]?.roles, ['admin']);
    const list = await users(['list']);
    t.same([list.code, list.stdout], [0, 'bob  sub=u-bob\nalice  sub=alice  roles=admin\n']);
  });

  t.test('disable, then enable: "disabled": true, then no mark at all', async (t) => {
    const disabled = await users(['disable', 'bob']);
    t.same([disabled.code, disabled.stdout, disabled.stderr], [0, `disabled user bob in ${file}\n`, '']);
    t.same((await entries())[0], { username: 'bob', password_hash: bobHash, sub: 'u-bob', disabled: true });
    t.same((await users(['list'])).stdout, 'bob  sub=u-bob  disabled\nalice  sub=alice  roles=admin\n');
    t.equal((await UserRegistry.load(file)).get('bob')?.disabled, true, 'the server loads bob disabled');
    const enabled = await users(['enable', 'bob']);
    t.same([enabled.code, enabled.stdout], [0, `enabled user bob in ${file}\n`]);
    t.same((await entries())[0], { username: 'bob', password_hash: bobHash, sub: 'u-bob' });
  });

  t.test('set-password: the first line of standard input, scrypt-hashed; the rules of users add', async (t) => {
    const run = await users(['set-password', 'bob'], 'bob-new-password\n');
    t.same([run.code, run.stdout, run.stderr], [0, `new password for user bob in ${file}\n`, '']);
    const registry = await UserRegistry.load(file);
    t.same(await registry.authenticate('bob', 'bob-new-password'), { username: 'bob', sub: 'u-bob', claims: {}, roles: [] });
    t.equal(await registry.authenticate('bob', 'bob-password-1'), undefined, 'the old one no longer works');
    const short = await users(['set-password', 'bob'], 'short\n');
    t.same([short.code, short.stderr], [1, 'error: the password (read from standard input) must have at least 8 characters\n']);
  });

  t.test('set-roles: replaces the roles; none removes the member', async (t) => {
    const none = await users(['set-roles', 'alice']);
    t.same([none.code, none.stdout], [0, `set roles (none) of user alice in ${file}\n`]);
    t.same(Object.keys((await entries())[1] ?? {}), ['username', 'password_hash']);
    const admin = await users(['set-roles', 'bob', '--role', 'admin']);
    t.same([admin.code, admin.stdout], [0, `set roles admin of user bob in ${file}\n`]);
    t.same((await entries())[0]?.roles, ['admin']);
    const bad = await users(['set-roles', 'bob', '--role', 'owner']);
    t.same([bad.code, bad.stderr.split('\n')[0]], [2, 'error: --role must be one of admin']);
  });

  t.test('an unknown username, a missing argument, --role on a command without it', async (t) => {
    const before = await readFile(file, 'utf8');
    const cases: [string[], number, string][] = [
      [['disable', 'carol'], 1, `error: no user "carol" in ${file}`],
      [['enable'], 2, 'error: missing <username>'],
      [['disable', 'bob', '--role', 'admin'], 2, "error: Unknown option '--role'"],
      [
        ['disable', 'bob', '--file', file, '--url', 'https://as.example.com', '--token', 't'],
        2,
        'error: --file: for the file only, not through the admin API (--url)',
      ],
    ];
    for (const [args, code, line] of cases) {
      const run = await users(args, 'a-password-123\n');
      t.same([run.code, run.stdout, run.stderr.split('\n')[0]], [code, '', line], args.join(' '));
    }
    t.equal(await readFile(file, 'utf8'), before, 'the file is unchanged');
  });
});

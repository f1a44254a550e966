import { chmod, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { PASSWORD_HASH_PATTERN, verifyPassword } from '../../src/users/password.js';
import { UserRegistry } from '../../src/users/registry.js';
import { runCommand } from '../helpers/cli.js';
import { tempDir } from '../helpers/keys.js';
import { collision, PASSWORD_HASH, service, webApp } from '../helpers/subject-collision.js';

/** `oauth2-token-service users …`, `password hash` and `secret hash`, in-process. */

const users = (args: string[], input?: string, env: Record<string, string> = {}) =>
  runCommand(['users', ...args], { env, ...(input === undefined ? {} : { input }) });

t.test('users add', async (t) => {
  const dir = await tempDir(t);
  const file = join(dir, 'users.json');
  const registered = async () => (await UserRegistry.load(file)).all();

  t.test('creates USERS_FILE with the password hashed, mode 0600', async (t) => {
    const run = await users(['add', '--username', 'alice', '--sub', 'u-1'], 'alice-password-1\n', { USERS_FILE: file });
    t.same([run.code, run.stdout, run.stderr], [0, `added user alice to ${file}\n`, '']);
    t.equal((await stat(file)).mode & 0o777, 0o600);
    const content = await readFile(file, 'utf8');
    t.notMatch(content, 'alice-password-1', 'the password itself is not stored');
    const json = JSON.parse(content) as { users: { username: string; password_hash: string; sub: string }[] };
    t.strictSame(Object.keys(json), ['users']);
    t.strictSame(
      json.users.map((u) => Object.keys(u)),
      [['username', 'password_hash', 'sub']],
    );
    t.match(json.users[0]?.password_hash, /^scrypt\$32768\$8\$1\$/);
    t.strictSame(await (await UserRegistry.load(file)).authenticate('alice', 'alice-password-1'), {
      username: 'alice',
      sub: 'u-1',
      claims: {},
      roles: [],
    });
  });

  t.test('appends, keeping the users already there; only the first line is the password', async (t) => {
    await chmod(file, 0o644);
    const run = await users(['add', '--file', file, '--username', 'bob'], 'bob password 2\r\nignored second line\n');
    t.same([run.code, run.stdout], [0, `added user bob to ${file}\n`]);
    t.equal((await stat(file)).mode & 0o777, 0o600, 'rewritten with mode 0600');
    t.strictSame(
      await registered(),
      [
        { username: 'alice', sub: 'u-1', claims: {}, roles: [] },
        { username: 'bob', sub: 'bob', claims: {}, roles: [] },
      ],
      'sub defaults to the username',
    );
    const registry = await UserRegistry.load(file);
    t.strictSame(
      await registry.authenticate('bob', 'bob password 2'),
      { username: 'bob', sub: 'bob', claims: {}, roles: [] },
      'the line ending is stripped',
    );
    t.equal(await registry.authenticate('bob', 'bob password 2\r'), undefined);

    const unterminated = await users(['add', '--file', file, '--username', 'carol'], 'carol-password');
    t.equal(unterminated.code, 0, unterminated.stderr);
    t.strictSame(
      await (await UserRegistry.load(file)).authenticate('carol', 'carol-password'),
      { username: 'carol', sub: 'carol', claims: {}, roles: [] },
      'no final newline needed',
    );
  });

  t.test('a refused user leaves the file unchanged: exit 1 for the change, 2 for the command line', async (t) => {
    const before = await readFile(file, 'utf8');
    const refusals: [string[], string | undefined, number, string][] = [
      [['--username', 'alice'], 'another-password\n', 1, `${file}: user "alice": username: registered twice`],
      [['--username', 'dave', '--sub', 'u-1'], 'dave-password\n', 1, `${file}: user "dave": sub: already used by another user`],
      [
        ['--username', 'dave', '--sub', 'has space'],
        'dave-password\n',
        1,
        `${file}: user "dave": sub: must be 1-255 printable ASCII characters without spaces`,
      ],
      [
        ['--username', ' dave'],
        'dave-password\n',
        1,
        `${file}: user " dave": username: must have no control characters and no surrounding spaces`,
      ],
      [['--username', 'dave'], 'short\n', 1, 'the password (read from standard input) must have at least 8 characters'],
      [
        ['--username', 'dave'],
        '\u{1F511}\u{1F511}\u{1F511}\u{1F511}\n',
        1,
        'the password (read from standard input) must have at least 8 characters',
      ],
      [['--username', 'dave'], '\n', 2, 'no password on standard input (pipe it in; see --help)'],
      [['--username', 'dave'], undefined, 2, 'no password on standard input (pipe it in; see --help)'],
      [[], 'dave-password\n', 2, '--username is required'],
      [['--username', 'dave', '--password', 'dave-password'], undefined, 2, "Unknown option '--password'"],
      [['--username', 'dave', 'dave-password'], undefined, 2, "unexpected argument 'dave-password'"],
    ];
    for (const [args, input, code, message] of refusals) {
      const run = await users(['add', '--file', file, ...args], input);
      t.equal(run.code, code, args.join(' '));
      t.equal(run.stdout, '');
      t.equal(run.stderr.split('\n')[0], `error: ${message}`);
      if (code === 2) t.match(run.stderr, /\nusage: oauth2-token-service users add --username NAME /);
    }
    t.equal(await readFile(file, 'utf8'), before);
    t.strictSame(await readdir(dir), ['users.json'], 'no temporary or lock file left behind');
  });

  t.test('needs a users file, and refuses one of another shape', async (t) => {
    const none = await users(['add', '--username', 'erin'], 'erin-password\n');
    t.same([none.code, none.stderr.split('\n')[0]], [2, 'error: name the users file with --file or USERS_FILE']);
    const other = join(dir, 'other.json');
    await writeFile(other, '{"clients": []}');
    const wrongShape = await users(['add', '--file', other, '--username', 'erin'], 'erin-password\n');
    t.same([wrongShape.code, wrongShape.stderr], [1, `error: ${other}: expected {"users": [...]}\n`]);
    t.equal(await readFile(other, 'utf8'), '{"clients": []}');
  });
});

t.test('users add keeps user subjects and client ids apart (CLIENTS_FILE or --clients-file)', async (t) => {
  const dir = await tempDir(t);
  const clientsFile = join(dir, 'clients.json');
  const usersFile = join(dir, 'users.json');
  await writeFile(clientsFile, JSON.stringify({ clients: [service('svc'), webApp('web')] }));

  const viaEnv = await users(['add', '--file', usersFile, '--username', 'sam', '--sub', 'svc'], 'sam-password-1\n', {
    CLIENTS_FILE: clientsFile,
  });
  t.same([viaEnv.code, viaEnv.stderr], [1, `error: ${collision('svc', clientsFile, 'sam', usersFile)}\n`]);
  const viaFlag = await users(['add', '--file', usersFile, '--username', 'svc', '--clients-file', clientsFile], 'svc-password-1\n');
  t.same(
    [viaFlag.code, viaFlag.stderr],
    [1, `error: ${collision('svc', clientsFile, 'svc', usersFile)}\n`],
    'a sub that defaults to the username',
  );
  await t.rejects(readFile(usersFile), { code: 'ENOENT' }, 'a refused user is not written');

  const web = await users(['add', '--file', usersFile, '--username', 'web', '--clients-file', clientsFile], 'web-password-1\n');
  t.equal(web.code, 0, web.stderr);
  t.same(
    (await UserRegistry.load(usersFile)).all(),
    [{ username: 'web', sub: 'web', claims: {}, roles: [] }],
    'the id of a client without client_credentials is free',
  );

  await writeFile(join(dir, '.clients.json.lock'), '');
  const held = await users(['add', '--file', usersFile, '--username', 'zoe'], 'zoe-password-1\n', { CLIENTS_FILE: clientsFile });
  t.equal(held.code, 1, 'the clients file is locked while a user is added against it');
  t.match(held.stderr, `error: another command is changing ${clientsFile}`);
});

t.test('users list and users remove <username>', async (t) => {
  const file = join(await tempDir(t), 'users.json');
  await writeFile(
    file,
    JSON.stringify({
      users: [
        { username: 'alice', password_hash: PASSWORD_HASH, sub: 'user-7f3a' },
        { username: 'Bob Smith', password_hash: PASSWORD_HASH },
        {
          username: 'carol',
          password_hash: PASSWORD_HASH,
          claims: { name: 'Carol', email: 'carol@example.com', address: { country: 'DE' } },
        },
      ],
    }),
  );
  const list = await users(['list'], undefined, { USERS_FILE: file });
  t.same(
    [list.code, list.stdout, list.stderr],
    [0, 'alice  sub=user-7f3a\n"Bob Smith"  sub="Bob Smith"\ncarol  sub=carol  claims=name,email,address\n', ''],
  );
  t.notMatch(list.stdout, 'scrypt', 'never a password hash');
  t.notMatch(list.stdout, 'carol@example.com', 'the names of the claims, not their values');

  const removed = await users(['remove', 'Bob Smith', '--file', file]);
  t.same([removed.code, removed.stdout, removed.stderr], [0, `removed user Bob Smith from ${file}\n`, '']);
  t.same(
    (await UserRegistry.load(file)).all().map((user) => user.username),
    ['alice', 'carol'],
  );
  const unknown = await users(['remove', 'bob', '--file', file]);
  t.same([unknown.code, unknown.stdout, unknown.stderr], [1, '', `error: no user "bob" in ${file}\n`]);
});

t.test('password hash and secret hash print the stored form on one line', async (t) => {
  const password = await runCommand(['password', 'hash', 's3cret pass']);
  t.same([password.code, password.stderr], [0, '']);
  t.match(password.stdout, /^scrypt\$32768\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}\n$/);
  t.match(password.stdout.trim(), PASSWORD_HASH_PATTERN);
  t.equal(await verifyPassword('s3cret pass', password.stdout.trim()), true);
  t.equal(await verifyPassword('s3cret', password.stdout.trim()), false);

  const secret = await runCommand(['secret', 'hash', 'my secret']);
  t.same([secret.code, secret.stdout, secret.stderr], [0, 'sha256:udHQE_YA7Bvxa65qNjTK0V3MSQyfKDV2QgGkGh1w3kQ\n', '']);

  for (const [group, name] of [
    ['password', 'password'],
    ['secret', 'secret'],
  ] as const) {
    for (const [args, message] of [
      [[], `missing <${name}>`],
      [[''], `<${name}> must not be empty`],
      [['two', 'words'], "unexpected argument 'words'"],
    ] as const) {
      const wrong = await runCommand([group, 'hash', ...args]);
      t.same([wrong.code, wrong.stdout, wrong.stderr], [2, '', `error: ${message}\nusage: oauth2-token-service ${group} hash <${name}>\n`]);
    }
  }
});

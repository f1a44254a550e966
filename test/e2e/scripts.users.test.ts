import { chmod, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { PASSWORD_HASH_PATTERN, verifyPassword } from '../../src/users/password.js';
import { UserRegistry } from '../../src/users/registry.js';
import { tempDir } from '../helpers/keys.js';
import { runNode } from '../helpers/process.js';

t.test('password:hash prints the stored form on one line', async (t) => {
  const run = await runNode('scripts/password-hash.js', ['s3cret pass']);
  t.equal(run.code, 0, run.stderr);
  t.match(run.stdout, /^scrypt\$32768\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}\n$/);
  t.match(run.stdout.trim(), PASSWORD_HASH_PATTERN);
  t.equal(run.stderr, '');
  t.equal(await verifyPassword('s3cret pass', run.stdout.trim()), true);
  t.equal(await verifyPassword('s3cret', run.stdout.trim()), false);

  for (const args of [[], [''], ['two', 'words']]) {
    const wrong = await runNode('scripts/password-hash.js', args);
    t.equal(wrong.code, 1, `args ${JSON.stringify(args)}`);
    t.equal(wrong.stdout, '');
    t.equal(wrong.stderr, 'error: usage: npm run --silent password:hash -- <password>\n');
  }
});

t.test('user:add', async (t) => {
  const dir = await tempDir(t);
  const file = join(dir, 'users.json');
  const users = async () => (await UserRegistry.load(file)).all();

  t.test('creates USERS_FILE with the password hashed, mode 0600', async (t) => {
    const run = await runNode('scripts/user-add.js', ['--username', 'alice', '--sub', 'u-1'], { USERS_FILE: file }, 'alice-password-1\n');
    t.equal(run.code, 0, run.stderr);
    t.equal(run.stdout, `added user alice to ${file}\n`);
    t.equal(run.stderr, '');
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
    t.strictSame(await (await UserRegistry.load(file)).authenticate('alice', 'alice-password-1'), { username: 'alice', sub: 'u-1' });
  });

  t.test('appends, keeping the users already there; only the first line is the password', async (t) => {
    await chmod(file, 0o644);
    const run = await runNode('scripts/user-add.js', ['--file', file, '--username', 'bob'], {}, 'bob password 2\r\nignored second line\n');
    t.equal(run.code, 0, run.stderr);
    t.equal(run.stdout, `added user bob to ${file}\n`);
    t.equal((await stat(file)).mode & 0o777, 0o600, 'rewritten with mode 0600');
    t.strictSame(
      await users(),
      [
        { username: 'alice', sub: 'u-1' },
        { username: 'bob', sub: 'bob' },
      ],
      'sub defaults to the username',
    );
    const registry = await UserRegistry.load(file);
    t.strictSame(await registry.authenticate('bob', 'bob password 2'), { username: 'bob', sub: 'bob' }, 'the line ending is stripped');
    t.equal(await registry.authenticate('bob', 'bob password 2\r'), undefined);
    t.strictSame(await registry.authenticate('alice', 'alice-password-1'), { username: 'alice', sub: 'u-1' });

    const unterminated = await runNode('scripts/user-add.js', ['--file', file, '--username', 'carol'], {}, 'carol-password');
    t.equal(unterminated.code, 0, unterminated.stderr);
    t.strictSame(
      await (await UserRegistry.load(file)).authenticate('carol', 'carol-password'),
      { username: 'carol', sub: 'carol' },
      'no final newline needed',
    );
  });

  t.test('a refused user leaves the file unchanged', async (t) => {
    const before = await readFile(file, 'utf8');
    const refusals: [string[], string | undefined, string][] = [
      [['--username', 'alice'], 'another-password\n', `error: ${file}: user "alice": username: registered twice`],
      [['--username', 'dave', '--sub', 'u-1'], 'dave-password\n', `error: ${file}: user "dave": sub: already used by another user`],
      [
        ['--username', 'dave', '--sub', 'has space'],
        'dave-password\n',
        `error: ${file}: user "dave": sub: must be 1-255 printable ASCII characters without spaces`,
      ],
      [
        ['--username', 'dave', '--sub', ''],
        'dave-password\n',
        `error: ${file}: user "dave": sub: must be 1-255 printable ASCII characters without spaces`,
      ],
      [
        ['--username', ' dave'],
        'dave-password\n',
        `error: ${file}: user " dave": username: must have no control characters and no surrounding spaces`,
      ],
      [['--username', 'dave'], 'short\n', 'error: the password (read from standard input) must have at least 8 characters'],
      [
        ['--username', 'dave'],
        '\u{1F511}\u{1F511}\u{1F511}\u{1F511}\n',
        'error: the password (read from standard input) must have at least 8 characters',
      ],
      [['--username', 'dave'], '\n', 'error: no password on standard input (pipe it in; see --help)'],
      [['--username', 'dave'], undefined, 'error: no password on standard input (pipe it in; see --help)'],
      [[], 'dave-password\n', 'error: --username is required'],
      [['--username', 'dave', '--password', 'dave-password'], undefined, "error: Unknown option '--password'"],
      [
        ['--username', 'dave', 'dave-password'],
        undefined,
        "error: Unexpected argument 'dave-password'. This command does not take positional arguments",
      ],
    ];
    for (const [args, input, stderr] of refusals) {
      const run = await runNode('scripts/user-add.js', ['--file', file, ...args], {}, input);
      t.equal(run.code, 1, args.join(' '));
      t.equal(run.stdout, '');
      t.equal(run.stderr, `${stderr}\n`);
    }
    t.equal(await readFile(file, 'utf8'), before);
    t.strictSame(await readdir(dir), ['users.json'], 'no temporary file left behind');
  });

  t.test('needs a users file, and refuses one of another shape', async (t) => {
    const none = await runNode('scripts/user-add.js', ['--username', 'erin'], {}, 'erin-password\n');
    t.equal(none.code, 1);
    t.equal(none.stderr, 'error: name the users file with --file or USERS_FILE\n');

    const other = join(dir, 'other.json');
    await writeFile(other, '{"clients": []}');
    const wrongShape = await runNode('scripts/user-add.js', ['--file', other, '--username', 'erin'], {}, 'erin-password\n');
    t.equal(wrongShape.code, 1);
    t.equal(wrongShape.stderr, `error: ${other}: expected {"users": [...]}\n`);
    t.equal(await readFile(other, 'utf8'), '{"clients": []}');
  });

  t.test('--help prints the usage and does nothing else', async (t) => {
    const run = await runNode('scripts/user-add.js', ['--help'], { USERS_FILE: join(dir, 'help.json') });
    t.equal(run.code, 0);
    t.equal(
      run.stdout,
      `usage: printf '%s\\n' "$PASSWORD" | npm run user:add -- --username NAME [--sub ID] [--file USERS_FILE] [--clients-file CLIENTS_FILE]
The password is read from standard input, so it stays out of the process list and shell history.\n`,
    );
    t.equal(run.stderr, '');
    await t.rejects(stat(join(dir, 'help.json')), { code: 'ENOENT' });
  });
});

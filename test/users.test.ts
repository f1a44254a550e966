import t from 'tap';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { hashPassword, PASSWORD_HASH_PATTERN, verifyPassword } from '../src/users/password.js';
import { UserRegistry, UsersFileError } from '../src/users/registry.js';
import { tempDir } from './helpers/keys.js';

t.test('password hashing (scrypt)', async (t) => {
  const stored = await hashPassword('correct horse');
  t.match(stored, /^scrypt\$32768\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
  t.match(stored, PASSWORD_HASH_PATTERN);
  t.not(await hashPassword('correct horse'), stored, 'salted');
  t.equal(await verifyPassword('correct horse', stored), true);
  t.equal(await verifyPassword('correct horse ', stored), false);
  t.equal(await verifyPassword('correct horse', undefined), false, 'unknown user');
  t.equal(await verifyPassword('correct horse', 'scrypt$3$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'), false, 'N not a power of two');
  t.equal(await verifyPassword('correct horse', stored.replace('$32768$', '$4194304$')), false, 'N beyond the bound');
});

t.test('UserRegistry', async (t) => {
  const hash = await hashPassword('alice-password');
  const registry = UserRegistry.fromEntries([
    { username: 'alice', password_hash: hash, sub: 'u-1' },
    { username: 'bob', password_hash: hash },
  ]);

  t.test('authenticates, with sub defaulting to the username', async (t) => {
    t.same(await registry.authenticate('alice', 'alice-password'), { username: 'alice', sub: 'u-1' });
    t.same(await registry.authenticate('bob', 'alice-password'), { username: 'bob', sub: 'bob' });
    t.equal(await registry.authenticate('alice', 'wrong'), undefined);
    t.equal(await registry.authenticate('mallory', 'alice-password'), undefined);
    t.same(registry.all(), [{ username: 'alice', sub: 'u-1' }, { username: 'bob', sub: 'bob' }], 'no hash exposed');
  });

  t.test('unknown users take as long as wrong passwords', async (t) => {
    const time = async (username: string) => {
      const started = process.hrtime.bigint();
      for (let i = 0; i < 4; i += 1) await registry.authenticate(username, 'wrong');
      return Number(process.hrtime.bigint() - started);
    };
    await time('mallory'); // warm the dummy hash
    const unknown = await time('mallory');
    const known = await time('alice');
    const ratio = unknown / known;
    t.ok(ratio > 0.5 && ratio < 2, `unknown/known time ratio ${ratio.toFixed(2)}`);
  });

  t.test('a bad entry is refused naming the user and the field', async (t) => {
    const cases: [unknown, string][] = [
      [{ username: 'a', password_hash: 'plain' }, 'users: user "a": password_hash: must be the output of "npm run password:hash"'],
      [{ username: ' a', password_hash: hash }, 'users: user " a": username: must have no control characters and no surrounding spaces'],
      [{ username: 'a', password_hash: hash, sub: 'has space' }, 'users: user "a": sub: must be 1-255 printable ASCII characters without spaces'],
      [{ username: 'a', password_hash: hash, role: 'admin' }, 'users: user "a": entry: Unrecognized key: "role"'],
      [{ password_hash: hash }, 'users: user #1: username: Invalid input: expected string, received undefined'],
    ];
    for (const [entry, message] of cases) t.throws(() => UserRegistry.fromEntries([entry]), new UsersFileError(message));
    t.throws(() => UserRegistry.fromEntries([{ username: 'a', password_hash: hash }, { username: 'a', password_hash: hash }]), { message: 'users: user "a": username: registered twice' });
    t.throws(() => UserRegistry.fromEntries([{ username: 'a', password_hash: hash }, { username: 'b', password_hash: hash, sub: 'a' }]), { message: 'users: user "b": sub: already used by another user' });
  });

  t.test('load() reads USERS_FILE and names the file on errors', async (t) => {
    const dir = await tempDir(t);
    const file = join(dir, 'users.json');
    await writeFile(file, JSON.stringify({ users: [{ username: 'alice', password_hash: hash }] }));
    t.same((await UserRegistry.load(file)).get('alice'), { username: 'alice', sub: 'alice' });
    await writeFile(file, '{');
    await t.rejects(UserRegistry.load(file), { message: new RegExp(`^${file}: not valid JSON`) });
    await writeFile(file, '{"clients": []}');
    await t.rejects(UserRegistry.load(file), { message: `${file}: expected {"users": [...]}` });
  });
});

import { scryptSync } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { hashPassword, isUsablePasswordHash, PASSWORD_HASH_PATTERN, verifyPassword } from '../../src/users/password.js';
import { UserRegistry, UsersFileError } from '../../src/users/registry.js';
import { tempDir } from '../helpers/keys.js';
import { cheapPasswordHash } from '../helpers/passwords.js';
import { occupyThreadPool } from '../helpers/thread-pool.js';

const SALT = 'c2FsdHNhbHRzYWx0c2FsdA'; // 16 bytes
const KEY = 'A'.repeat(43); // 32 bytes

/** A stored hash with chosen parameters, as another tool (or a later default) may write it. */
function storedWith(password: string, N: number, r: number, p: number): string {
  const key = scryptSync(password, Buffer.from(SALT, 'base64url'), 32, { N, r, p, maxmem: 256 * N * r });
  return `scrypt$${N}$${r}$${p}$${SALT}$${key.toString('base64url')}`;
}

t.test('password hashing (scrypt)', async (t) => {
  const stored = await hashPassword('correct horse');
  t.match(stored, /^scrypt\$32768\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
  t.match(stored, PASSWORD_HASH_PATTERN);
  t.equal(Buffer.from(stored.split('$')[4] as string, 'base64url').length, 16, 'a 16-byte salt');
  t.not(await hashPassword('correct horse'), stored, 'salted');
  t.equal(await verifyPassword('correct horse', stored), true);
  t.equal(await verifyPassword('correct horse ', stored), false);
  t.equal(await verifyPassword('', stored), false);
  t.equal(await verifyPassword('correct horse', undefined), false, 'unknown user');
  t.equal(await verifyPassword('pässword', await hashPassword('pässword')), true, 'UTF-8 passwords');
});

t.test('scrypt runs on threads of its own: a check does not wait for libuv’s pool, where tokens are signed', async (t) => {
  const stored = cheapPasswordHash('correct horse');
  await verifyPassword('warm up', stored); // the first thread's start, outside the measurement
  const pool = occupyThreadPool(600);
  t.equal(await verifyPassword('correct horse', stored), true);
  t.equal(await verifyPassword('wrong horse', stored), false);
  t.equal(pool.settled(), false, 'checked while every pool thread was busy');
  await pool.done;
});

t.test('the parameters are read from the stored hash', async (t) => {
  const cheap = storedWith('correct horse', 1024, 4, 2);
  t.equal(isUsablePasswordHash(cheap), true);
  t.equal(await verifyPassword('correct horse', cheap), true);
  t.equal(await verifyPassword('wrong horse', cheap), false);
});

t.test('a malformed or absurd stored hash never verifies', async (t) => {
  const malformed: [string, string][] = [
    ['', 'empty'],
    ['plain', 'not the format'],
    [`sha256:${KEY}`, 'a client secret hash'],
    [`scrypt$32768$8$1$${SALT}$${KEY.slice(1)}`, 'a 31-byte key'],
    [`scrypt$32768$8$1$${SALT}`, 'no key'],
    [`scrypt$3$8$1$${SALT}$${KEY}`, 'N not a power of two'],
    [`scrypt$1$8$1$${SALT}$${KEY}`, 'N = 1'],
    [`scrypt$2097152$1$1$${SALT}$${KEY}`, 'N > 2^20'],
    [`scrypt$1024$0$1$${SALT}$${KEY}`, 'r = 0'],
    [`scrypt$1024$33$1$${SALT}$${KEY}`, 'r > 32'],
    [`scrypt$1024$8$0$${SALT}$${KEY}`, 'p = 0'],
    [`scrypt$1024$8$17$${SALT}$${KEY}`, 'p > 16'],
    [`scrypt$1048576$16$1$${SALT}$${KEY}`, '2 GiB of memory'],
  ];
  for (const [stored, why] of malformed) {
    t.equal(isUsablePasswordHash(stored), false, why);
    t.equal(await verifyPassword('correct horse', stored), false, why);
  }
  t.equal(isUsablePasswordHash(`scrypt$1048576$8$1$${SALT}$${KEY}`), true, 'N = 2^20 with 1 GiB is the limit');
});

t.test('UserRegistry', async (t) => {
  const hash = cheapPasswordHash('alice-password');
  const registry = UserRegistry.fromEntries([
    { username: 'alice', password_hash: hash, sub: 'u-1' },
    { username: 'bob', password_hash: hash },
  ]);

  t.test('authenticates, with sub defaulting to the username', async (t) => {
    t.strictSame(await registry.authenticate('alice', 'alice-password'), { username: 'alice', sub: 'u-1', claims: {}, roles: [] });
    t.strictSame(await registry.authenticate('bob', 'alice-password'), { username: 'bob', sub: 'bob', claims: {}, roles: [] });
    t.equal(await registry.authenticate('alice', 'wrong'), undefined);
    t.equal(await registry.authenticate('Alice', 'alice-password'), undefined, 'usernames are case-sensitive');
    t.equal(await registry.authenticate('mallory', 'alice-password'), undefined);
    t.strictSame(registry.get('alice'), { username: 'alice', sub: 'u-1', claims: {}, roles: [] });
    t.equal(registry.get('mallory'), undefined);
    t.strictSame(
      registry.all(),
      [
        { username: 'alice', sub: 'u-1', claims: {}, roles: [] },
        { username: 'bob', sub: 'bob', claims: {}, roles: [] },
      ],
      'no hash exposed',
    );
  });

  t.test('unknown users and malformed hashes take as long as wrong passwords', async (t) => {
    // Production cost: the dummy hash of unknown users has it, so a real user must too.
    const registry = UserRegistry.fromEntries([{ username: 'alice', password_hash: await hashPassword('alice-password') }]);
    const elapsed = async (attempt: () => Promise<unknown>) => {
      const started = process.hrtime.bigint();
      await attempt();
      return Number(process.hrtime.bigint() - started);
    };
    await registry.authenticate('mallory', 'wrong'); // makes the dummy hash
    const totals = { unknownUser: 0, malformedHash: 0, wrongPassword: 0 };
    // Interleaved, so a burst of load on a busy machine falls on all three alike.
    for (let round = 0; round < 5; round += 1) {
      totals.unknownUser += await elapsed(() => registry.authenticate('mallory', 'wrong'));
      totals.malformedHash += await elapsed(() => verifyPassword('wrong', `scrypt$3$8$1$${SALT}$${KEY}`));
      totals.wrongPassword += await elapsed(() => registry.authenticate('alice', 'wrong'));
    }
    for (const kind of ['unknownUser', 'malformedHash'] as const) {
      const ratio = totals[kind] / totals.wrongPassword;
      t.ok(ratio > 0.5 && ratio < 2, `${kind}/wrongPassword time ratio ${ratio.toFixed(2)}`);
    }
  });

  t.test('a bad entry is refused naming the user and the field', async (t) => {
    const cases: [unknown, string][] = [
      [
        { username: 'a', password_hash: 'plain' },
        'users: user "a": password_hash: must be the output of "oauth2-token-service password hash"',
      ],
      [
        { username: 'a', password_hash: hash.replace('$16$', '$15$') },
        'users: user "a": password_hash: scrypt parameters out of bounds (N a power of 2 up to 2^20, r 1-32, p 1-16, 128*N*r at most 1 GiB)',
      ],
      [{ username: 'a' }, 'users: user "a": password_hash: Invalid input: expected string, received undefined'],
      [{ username: '', password_hash: hash }, 'users: user "": username: Too small: expected string to have >=1 characters'],
      [
        { username: 'u'.repeat(129), password_hash: hash },
        `users: user "${'u'.repeat(129)}": username: Too big: expected string to have <=128 characters`,
      ],
      [{ username: ' a', password_hash: hash }, 'users: user " a": username: must have no control characters and no surrounding spaces'],
      [{ username: 'a ', password_hash: hash }, 'users: user "a ": username: must have no control characters and no surrounding spaces'],
      [
        { username: 'a\tb', password_hash: hash },
        'users: user "a\tb": username: must have no control characters and no surrounding spaces',
      ],
      [
        { username: 'a\u0085b', password_hash: hash },
        'users: user "a\u0085b": username: must have no control characters and no surrounding spaces',
      ],
      [
        { username: 'a', password_hash: hash, sub: 'has space' },
        'users: user "a": sub: must be 1-255 printable ASCII characters without spaces',
      ],
      [{ username: 'a', password_hash: hash, sub: '' }, 'users: user "a": sub: must be 1-255 printable ASCII characters without spaces'],
      [{ username: 'a', password_hash: hash, sub: 'é' }, 'users: user "a": sub: must be 1-255 printable ASCII characters without spaces'],
      [
        { username: 'a', password_hash: hash, sub: 's'.repeat(256) },
        'users: user "a": sub: must be 1-255 printable ASCII characters without spaces',
      ],
      [{ username: 'a', password_hash: hash, role: 'admin' }, 'users: user "a": entry: Unrecognized key: "role"'],
      [
        { username: 'a', password: 'alice-password' },
        'users: user "a": password_hash: Invalid input: expected string, received undefined\nusers: user "a": entry: Unrecognized key: "password"',
      ],
      [{ password_hash: hash }, 'users: user #1: username: Invalid input: expected string, received undefined'],
      [{ username: 7, password_hash: hash }, 'users: user #1: username: Invalid input: expected string, received number'],
      [null, 'users: user #1: entry: Invalid input: expected object, received null'],
      ['alice', 'users: user #1: entry: Invalid input: expected object, received string'],
    ];
    for (const [entry, message] of cases) t.throws(() => UserRegistry.fromEntries([entry]), new UsersFileError(message));
    t.throws(
      () => UserRegistry.fromEntries([{ username: 'a', password_hash: hash }, {}], 'users.json'),
      new UsersFileError('users.json: user #2: username: Invalid input: expected string, received undefined'),
    );
    t.strictSame(
      UserRegistry.fromEntries([{ username: 'a b', password_hash: hash, sub: 'ab' }]).all(),
      [{ username: 'a b', sub: 'ab', claims: {}, roles: [] }],
      'inner spaces are fine',
    );
    t.strictSame(
      UserRegistry.fromEntries([{ username: 'a b', password_hash: hash }]).all(),
      [{ username: 'a b', sub: 'a b', claims: {}, roles: [] }],
      'a defaulted sub keeps the username as is',
    );
  });

  t.test('claims: standard claims (OpenID Connect Core 1.0 §5.1), frozen; one line per bad claim', async (t) => {
    const claims = { email: 'alice@example.com', email_verified: true, address: { locality: 'Berlin' }, updated_at: 1_700_000_000 };
    const withClaims = UserRegistry.fromEntries([{ username: 'alice', password_hash: hash, claims }]).get('alice');
    t.strictSame(withClaims, { username: 'alice', sub: 'alice', claims, roles: [] });
    t.ok(Object.isFrozen(withClaims?.claims) && Object.isFrozen(withClaims?.claims.address), 'frozen, the address too');
    t.throws(
      () =>
        UserRegistry.fromEntries([
          { username: 'alice', password_hash: hash, claims: { email: 'alice', email_verified: 'yes', roles: ['admin'] } },
          { username: 'bob', password_hash: hash, claims: { address: { city: 'Berlin' } } },
          { username: 'carol', password_hash: hash, claims: [] },
        ]),
      new UsersFileError(
        [
          'users: user "alice": claims.email: must be an email address, such as alice@example.com',
          'users: user "alice": claims.email_verified: must be true or false (a JSON boolean)',
          'users: user "alice": claims.roles: not a standard claim (OpenID Connect Core 1.0 section 5.1)',
          'users: user "bob": claims.address.city: not a member of the address claim (OpenID Connect Core 1.0 section 5.1.1)',
          'users: user "carol": claims: must be an object of standard claims (OpenID Connect Core 1.0 section 5.1)',
        ].join('\n'),
      ),
    );
  });

  t.test('a username or sub registered twice is refused', async (t) => {
    t.throws(
      () =>
        UserRegistry.fromEntries([
          { username: 'a', password_hash: hash },
          { username: 'a', password_hash: hash, sub: 'other' },
        ]),
      new UsersFileError('users: user "a": username: registered twice'),
    );
    t.throws(
      () =>
        UserRegistry.fromEntries([
          { username: 'a', password_hash: hash, sub: 'x' },
          { username: 'b', password_hash: hash, sub: 'x' },
        ]),
      new UsersFileError('users: user "b": sub: already used by another user'),
    );
    t.throws(
      () =>
        UserRegistry.fromEntries([
          { username: 'a', password_hash: hash },
          { username: 'b', password_hash: hash, sub: 'a' },
        ]),
      new UsersFileError('users: user "b": sub: already used by another user'),
      'a sub defaulted from the username counts',
    );
  });

  t.test('a sub beginning with fed_ is reserved for users of identity providers', async (t) => {
    t.throws(
      () => UserRegistry.fromEntries([{ username: 'a', password_hash: hash, sub: 'fed_x' }]),
      new UsersFileError('users: user "a": sub: must not begin with "fed_" (reserved for users who sign in through an identity provider)'),
    );
    t.throws(
      () => UserRegistry.fromEntries([{ username: 'fed_ana', password_hash: hash }]),
      new UsersFileError(
        'users: user "fed_ana": username (the sub by default): must not begin with "fed_" (reserved for users who sign in through an identity provider)',
      ),
    );
    t.equal(UserRegistry.fromEntries([{ username: 'fed_ana', password_hash: hash, sub: 'ana' }]).size, 1, 'with a sub of its own');
  });

  t.test('load() reads USERS_FILE and names the file on errors', async (t) => {
    const dir = await tempDir(t);
    const file = join(dir, 'users.json');
    await writeFile(file, JSON.stringify({ users: [{ username: 'alice', password_hash: hash }] }));
    t.strictSame((await UserRegistry.load(file)).all(), [{ username: 'alice', sub: 'alice', claims: {}, roles: [] }]);
    await writeFile(file, JSON.stringify({ users: [] }));
    t.strictSame((await UserRegistry.load(file)).all(), []);
    await writeFile(file, JSON.stringify({ users: [{ username: 'alice', password_hash: 'plain' }] }));
    await t.rejects(
      UserRegistry.load(file),
      new UsersFileError(`${file}: user "alice": password_hash: must be the output of "oauth2-token-service password hash"`),
    );
    await writeFile(file, '{');
    await t.rejects(UserRegistry.load(file), { name: 'UsersFileError', message: new RegExp(`^${file}: not valid JSON \\(`) });
    await writeFile(file, '{"clients": []}');
    await t.rejects(UserRegistry.load(file), new UsersFileError(`${file}: expected {"users": [...]}`));
    await writeFile(file, '[]');
    await t.rejects(UserRegistry.load(file), new UsersFileError(`${file}: expected {"users": [...]}`));
    await t.rejects(UserRegistry.load(join(dir, 'missing.json')), new UsersFileError(`${join(dir, 'missing.json')}: no such file`));
  });
});

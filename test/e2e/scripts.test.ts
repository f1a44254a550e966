import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { ClientRegistry } from '../../src/clients/registry.js';
import { hashClientSecret, verifyClientSecret } from '../../src/clients/secret.js';
import { verifyPassword } from '../../src/users/password.js';
import { UserRegistry } from '../../src/users/registry.js';
import { tempDir } from '../helpers/keys.js';
import { runNode } from '../helpers/process.js';

t.test('secret:hash prints the stored form on one line', async (t) => {
  const run = await runNode('scripts/secret-hash.js', ['my secret']);
  t.equal(run.code, 0);
  t.equal(run.stdout, `${hashClientSecret('my secret')}\n`);
  const missing = await runNode('scripts/secret-hash.js', []);
  t.equal(missing.code, 1);
  t.equal(missing.stderr, 'error: usage: npm run --silent secret:hash -- <secret>\n');
});

t.test('client:add registers a client and prints its secret once', async (t) => {
  const dir = await tempDir(t);
  const file = join(dir, 'clients.json');
  const run = await runNode('scripts/client-add.js', [
    '--file',
    file,
    '--name',
    'Reports',
    '--grant',
    'client_credentials',
    '--scope',
    'read reports',
  ]);
  t.equal(run.code, 0, run.stderr);
  const [, clientId, secret] =
    /^added client (client-[A-Za-z0-9_-]{16}) to .*\nclient_secret: ([A-Za-z0-9_-]{43})\n/.exec(run.stdout) ?? [];
  t.ok(clientId && secret, run.stdout);
  t.equal(Buffer.from(secret as string, 'base64url').length, 32, 'a 256-bit secret');
  const content = await readFile(file, 'utf8');
  t.notMatch(content, secret as string, 'the secret itself is not stored');
  t.equal((await stat(file)).mode & 0o777, 0o600);
  const client = (await ClientRegistry.load(file)).get(clientId as string);
  t.equal(client?.clientName, 'Reports');
  t.same(client?.scope, ['read', 'reports']);
  t.ok(verifyClientSecret(secret as string, client?.secretDigest));

  const second = await runNode(
    'scripts/client-add.js',
    ['--id', 'spa', '--auth-method', 'none', '--grant', 'authorization_code', '--redirect-uri', 'https://spa.example.com/cb'],
    { CLIENTS_FILE: file },
  );
  t.equal(second.code, 0, second.stderr);
  t.equal(second.stdout, `added client spa to ${file}\n`, 'a public client gets no secret');
  t.equal((await ClientRegistry.load(file)).all().length, 2, 'appended, the first client kept');

  const invalid = await runNode('scripts/client-add.js', [
    '--file',
    file,
    '--id',
    'bad',
    '--auth-method',
    'none',
    '--grant',
    'client_credentials',
  ]);
  t.equal(invalid.code, 1);
  t.equal(invalid.stderr, `error: ${file}: client "bad": grant_types: client_credentials needs a confidential client\n`);
  t.equal((await ClientRegistry.load(file)).all().length, 2, 'a refused client leaves the file unchanged');

  const resourceServer = await runNode('scripts/client-add.js', [
    '--file',
    file,
    '--id',
    'rs',
    '--grant',
    'client_credentials',
    '--introspect-all-tokens',
  ]);
  t.equal(resourceServer.code, 0, resourceServer.stderr);
  t.equal((await ClientRegistry.load(file)).get('rs')?.introspectAllTokens, true, '--introspect-all-tokens marks a resource server');
  t.equal((await ClientRegistry.load(file)).get('spa')?.introspectAllTokens, false);
  const publicIntrospector = await runNode('scripts/client-add.js', [
    '--file',
    file,
    '--id',
    'pub',
    '--auth-method',
    'none',
    '--grant',
    'authorization_code',
    '--redirect-uri',
    'https://spa.example.com/cb',
    '--introspect-all-tokens',
  ]);
  t.equal(publicIntrospector.code, 1);
  t.equal(
    publicIntrospector.stderr,
    `error: ${file}: client "pub": introspect_all_tokens: a public client cannot introspect; only a confidential client may hold this right\n`,
  );

  await writeFile(file, '{"nope": 1}');
  const corrupt = await runNode('scripts/client-add.js', ['--file', file]);
  t.equal(corrupt.code, 1);
  t.equal(corrupt.stderr, `error: ${file}: expected {"clients": [...]}\n`);
});

t.test('password:hash prints a scrypt hash on one line', async (t) => {
  const run = await runNode('scripts/password-hash.js', ['s3cret pass']);
  t.equal(run.code, 0);
  t.match(run.stdout, /^scrypt\$32768\$8\$1\$\S+\n$/);
  t.equal(await verifyPassword('s3cret pass', run.stdout.trim()), true);
  const missing = await runNode('scripts/password-hash.js', []);
  t.equal(missing.code, 1);
  t.equal(missing.stderr, 'error: usage: npm run --silent password:hash -- <password>\n');
});

t.test('user:add appends a user, reading the password from standard input', async (t) => {
  const file = join(await tempDir(t), 'users.json');
  const run = await runNode('scripts/user-add.js', ['--username', 'alice', '--sub', 'u-1'], { USERS_FILE: file }, 'alice-password-1\n');
  t.equal(run.code, 0, run.stderr);
  t.equal(run.stdout, `added user alice to ${file}\n`);
  t.equal((await stat(file)).mode & 0o777, 0o600);
  t.notMatch(await readFile(file, 'utf8'), 'alice-password-1');
  t.same(await (await UserRegistry.load(file)).authenticate('alice', 'alice-password-1'), { username: 'alice', sub: 'u-1' });

  const duplicate = await runNode('scripts/user-add.js', ['--file', file, '--username', 'alice'], {}, 'another-password\n');
  t.equal(duplicate.code, 1);
  t.equal(duplicate.stderr, `error: ${file}: user "alice": username: registered twice\n`);
  const short = await runNode('scripts/user-add.js', ['--file', file, '--username', 'bob'], {}, 'short\n');
  t.equal(short.code, 1);
  t.equal(short.stderr, 'error: the password (read from standard input) must have at least 8 characters\n');
  t.equal((await UserRegistry.load(file)).all().length, 1, 'refused users leave the file unchanged');
});

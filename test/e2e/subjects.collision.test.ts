import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { ClientRegistry } from '../../src/clients/registry.js';
import { UserRegistry } from '../../src/users/registry.js';
import { keysDirWithSigningKey, tempDir } from '../helpers/keys.js';
import { freePort } from '../helpers/ports.js';
import { runNode } from '../helpers/process.js';
import { collision, PASSWORD_HASH, service, webApp } from '../helpers/subject-collision.js';

/** The processes that load clients and users refuse a client_credentials client_id that is a user's sub (RFC 9700 §4.15.1). */

t.test('the server refuses to start when CLIENTS_FILE and USERS_FILE collide', async (t) => {
  const dir = await tempDir(t);
  const clientsFile = join(dir, 'clients.json');
  const usersFile = join(dir, 'users.json');
  await writeFile(clientsFile, JSON.stringify({ clients: [webApp('web'), service('bob')] }));
  await writeFile(usersFile, JSON.stringify({ users: [{ username: 'bob', password_hash: PASSWORD_HASH }] }));
  const env = {
    KEYS_DIR: await keysDirWithSigningKey(t),
    CLIENTS_FILE: clientsFile,
    USERS_FILE: usersFile,
    PORT: String(await freePort()),
  };
  const run = await runNode('src/main.js', [], env);
  t.equal(run.code, 1);
  t.equal(run.stderr, `${collision('bob', clientsFile, 'bob', usersFile)}\n`);
  t.equal(run.stdout, '', 'nothing started');
});

t.test('npm run dev checks its demo client and demo user too', async (t) => {
  const dir = await tempDir(t);
  const env = { KEYS_DIR: join(dir, 'keys'), PORT: String(await freePort()) };

  const usersFile = join(dir, 'users.json');
  await writeFile(usersFile, JSON.stringify({ users: [{ username: 'dee', password_hash: PASSWORD_HASH, sub: 'demo-client' }] }));
  const demoClient = await runNode('src/dev.js', [], { ...env, USERS_FILE: usersFile });
  t.equal(demoClient.code, 1);
  t.equal(demoClient.stderr, `${collision('demo-client', 'the demo client', 'dee', usersFile)}\n`);

  const clientsFile = join(dir, 'clients.json');
  await writeFile(clientsFile, JSON.stringify({ clients: [service('demo')] }));
  const demoUser = await runNode('src/dev.js', [], { ...env, CLIENTS_FILE: clientsFile });
  t.equal(demoUser.code, 1);
  t.equal(demoUser.stderr, `${collision('demo', clientsFile, 'demo', 'the demo user')}\n`);
});

t.test('client:add checks the users file (USERS_FILE or --users-file)', async (t) => {
  const dir = await tempDir(t);
  const clientsFile = join(dir, 'clients.json');
  const usersFile = join(dir, 'users.json');
  await writeFile(usersFile, JSON.stringify({ users: [{ username: 'alice', password_hash: PASSWORD_HASH, sub: 'user-alice' }] }));

  const viaEnv = await runNode('scripts/client-add.js', ['--file', clientsFile, '--id', 'user-alice', '--grant', 'client_credentials'], {
    USERS_FILE: usersFile,
  });
  t.equal(viaEnv.code, 1);
  t.equal(viaEnv.stderr, `error: ${collision('user-alice', clientsFile, 'alice', usersFile)}\n`);
  const viaFlag = await runNode('scripts/client-add.js', [
    '--file',
    clientsFile,
    '--id',
    'user-alice',
    '--grant',
    'client_credentials',
    '--users-file',
    usersFile,
  ]);
  t.equal(viaFlag.code, 1);
  t.equal(viaFlag.stderr, `error: ${collision('user-alice', clientsFile, 'alice', usersFile)}\n`);
  await t.rejects(readFile(clientsFile), { code: 'ENOENT' }, 'a refused client is not written');

  const codeFlow = await runNode(
    'scripts/client-add.js',
    ['--file', clientsFile, '--id', 'user-alice', '--grant', 'authorization_code', '--redirect-uri', 'https://app.example.com/cb'],
    { USERS_FILE: usersFile },
  );
  t.equal(codeFlow.code, 0, codeFlow.stderr);
  const noUsersYet = await runNode('scripts/client-add.js', [
    '--file',
    clientsFile,
    '--id',
    'svc',
    '--grant',
    'client_credentials',
    '--users-file',
    join(dir, 'missing.json'),
  ]);
  t.equal(noUsersYet.code, 0, noUsersYet.stderr);
  t.same(
    (await ClientRegistry.load(clientsFile)).all().map((c) => c.clientId),
    ['user-alice', 'svc'],
  );
});

t.test('user:add checks the clients file (CLIENTS_FILE or --clients-file)', async (t) => {
  const dir = await tempDir(t);
  const clientsFile = join(dir, 'clients.json');
  const usersFile = join(dir, 'users.json');
  await writeFile(clientsFile, JSON.stringify({ clients: [service('svc'), webApp('web')] }));

  const viaEnv = await runNode(
    'scripts/user-add.js',
    ['--file', usersFile, '--username', 'sam', '--sub', 'svc'],
    { CLIENTS_FILE: clientsFile },
    'sam-password-1\n',
  );
  t.equal(viaEnv.code, 1);
  t.equal(viaEnv.stderr, `error: ${collision('svc', clientsFile, 'sam', usersFile)}\n`);
  const viaFlag = await runNode(
    'scripts/user-add.js',
    ['--file', usersFile, '--username', 'svc', '--clients-file', clientsFile],
    {},
    'svc-password-1\n',
  );
  t.equal(viaFlag.code, 1);
  t.equal(viaFlag.stderr, `error: ${collision('svc', clientsFile, 'svc', usersFile)}\n`, 'a sub that defaults to the username');
  await t.rejects(readFile(usersFile), { code: 'ENOENT' }, 'a refused user is not written');

  const web = await runNode(
    'scripts/user-add.js',
    ['--file', usersFile, '--username', 'web', '--clients-file', clientsFile],
    {},
    'web-password-1\n',
  );
  t.equal(web.code, 0, web.stderr);
  t.same(
    (await UserRegistry.load(usersFile)).all(),
    [{ username: 'web', sub: 'web' }],
    'the id of a client without client_credentials is free',
  );
});

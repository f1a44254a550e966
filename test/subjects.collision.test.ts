import t from 'tap';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ClientRegistry } from '../src/clients/registry.js';
import { hashClientSecret } from '../src/clients/secret.js';
import { assertDistinctSubjects, SubjectCollisionError } from '../src/oauth/subjects.js';
import { hashPassword } from '../src/users/password.js';
import { UserRegistry } from '../src/users/registry.js';
import { keysDirWithSigningKey, tempDir } from './helpers/keys.js';
import { runNode } from './helpers/process.js';
import { freePort } from './helpers/redis.js';

/** RFC 9700 §4.15.1: a client_credentials token's sub (the client id) must never be a user's sub. */

const HASH = hashClientSecret('collision-test-secret');
const PASSWORD_HASH = await hashPassword('alice-password-1');
const collision = (clientId: string, clients: string, username: string, users: string) =>
  `client "${clientId}" (${clients}) and user "${username}" (${users}) share the subject "${clientId}": ` +
  `the client's client_credentials tokens would carry the user's sub (RFC 9700 §4.15); change the client_id or the user's sub`;

const service = (clientId: string) => ({ client_id: clientId, client_secret_hash: HASH, grant_types: ['client_credentials'], scope: 'read' });
const webApp = (clientId: string) => ({ client_id: clientId, client_secret_hash: HASH, grant_types: ['authorization_code'], redirect_uris: ['https://app.example.com/cb'] });

t.test('assertDistinctSubjects', async (t) => {
  const users = UserRegistry.fromEntries([
    { username: 'alice', password_hash: PASSWORD_HASH, sub: 'user-alice' },
    { username: 'bob', password_hash: PASSWORD_HASH },
  ]).all();
  const sources = { clients: 'clients.json', users: 'users.json' };
  const check = (clients: unknown[]) => () => assertDistinctSubjects(ClientRegistry.fromMetadata(clients).all(), users, sources);

  t.throws(check([service('reports'), service('user-alice')]), new SubjectCollisionError(collision('user-alice', 'clients.json', 'alice', 'users.json')), 'a client_credentials client named after an explicit sub');
  t.throws(check([service('bob')]), new SubjectCollisionError(collision('bob', 'clients.json', 'bob', 'users.json')), 'a sub that defaults to the username');
  t.doesNotThrow(check([service('alice')]), "a username that is not the user's sub does not collide");
  t.doesNotThrow(check([webApp('user-alice'), webApp('bob')]), 'a client without client_credentials never appears as a sub');
  t.doesNotThrow(() => assertDistinctSubjects(ClientRegistry.fromMetadata([service('bob')]).all(), [], sources), 'no users, no collision');
});

t.test('the server refuses to start when CLIENTS_FILE and USERS_FILE collide', async (t) => {
  const dir = await tempDir(t);
  const clientsFile = join(dir, 'clients.json');
  const usersFile = join(dir, 'users.json');
  await writeFile(clientsFile, JSON.stringify({ clients: [webApp('web'), service('bob')] }));
  await writeFile(usersFile, JSON.stringify({ users: [{ username: 'bob', password_hash: PASSWORD_HASH }] }));
  const env = { KEYS_DIR: await keysDirWithSigningKey(t), CLIENTS_FILE: clientsFile, USERS_FILE: usersFile, PORT: String(await freePort()) };
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

  const viaEnv = await runNode('scripts/client-add.js', ['--file', clientsFile, '--id', 'user-alice', '--grant', 'client_credentials'], { USERS_FILE: usersFile });
  t.equal(viaEnv.code, 1);
  t.equal(viaEnv.stderr, `error: ${collision('user-alice', clientsFile, 'alice', usersFile)}\n`);
  const viaFlag = await runNode('scripts/client-add.js', ['--file', clientsFile, '--id', 'user-alice', '--grant', 'client_credentials', '--users-file', usersFile]);
  t.equal(viaFlag.code, 1);
  t.equal(viaFlag.stderr, `error: ${collision('user-alice', clientsFile, 'alice', usersFile)}\n`);
  await t.rejects(readFile(clientsFile), { code: 'ENOENT' }, 'a refused client is not written');

  const codeFlow = await runNode('scripts/client-add.js', ['--file', clientsFile, '--id', 'user-alice', '--grant', 'authorization_code', '--redirect-uri', 'https://app.example.com/cb'], { USERS_FILE: usersFile });
  t.equal(codeFlow.code, 0, codeFlow.stderr);
  const noUsersYet = await runNode('scripts/client-add.js', ['--file', clientsFile, '--id', 'svc', '--grant', 'client_credentials', '--users-file', join(dir, 'missing.json')]);
  t.equal(noUsersYet.code, 0, noUsersYet.stderr);
  t.same((await ClientRegistry.load(clientsFile)).all().map((c) => c.clientId), ['user-alice', 'svc']);
});

t.test('user:add checks the clients file (CLIENTS_FILE or --clients-file)', async (t) => {
  const dir = await tempDir(t);
  const clientsFile = join(dir, 'clients.json');
  const usersFile = join(dir, 'users.json');
  await writeFile(clientsFile, JSON.stringify({ clients: [service('svc'), webApp('web')] }));

  const viaEnv = await runNode('scripts/user-add.js', ['--file', usersFile, '--username', 'sam', '--sub', 'svc'], { CLIENTS_FILE: clientsFile }, 'sam-password-1\n');
  t.equal(viaEnv.code, 1);
  t.equal(viaEnv.stderr, `error: ${collision('svc', clientsFile, 'sam', usersFile)}\n`);
  const viaFlag = await runNode('scripts/user-add.js', ['--file', usersFile, '--username', 'svc', '--clients-file', clientsFile], {}, 'svc-password-1\n');
  t.equal(viaFlag.code, 1);
  t.equal(viaFlag.stderr, `error: ${collision('svc', clientsFile, 'svc', usersFile)}\n`, 'a sub that defaults to the username');
  await t.rejects(readFile(usersFile), { code: 'ENOENT' }, 'a refused user is not written');

  const web = await runNode('scripts/user-add.js', ['--file', usersFile, '--username', 'web', '--clients-file', clientsFile], {}, 'web-password-1\n');
  t.equal(web.code, 0, web.stderr);
  t.same((await UserRegistry.load(usersFile)).all(), [{ username: 'web', sub: 'web' }], 'the id of a client without client_credentials is free');
});

import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { keysDirWithSigningKey, tempDir } from '../helpers/keys.js';
import { freePort } from '../../harness/ports.js';
import { runNode } from '../../harness/process.js';
import { collision, PASSWORD_HASH, service, webApp } from '../helpers/subject-collision.js';

/**
 * The processes that load clients and users refuse a client_credentials client_id that is a user's sub (RFC 9700 §4.15.1);
 * the operator commands refuse to write one (test/unit/cli.clients.test.ts, cli.users.test.ts).
 */

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

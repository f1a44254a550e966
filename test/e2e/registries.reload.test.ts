import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { hashClientSecret } from '../../src/clients/secret.js';
import { keysDirWithSigningKey, tempDir } from '../helpers/keys.js';
import { cheapPasswordHash } from '../helpers/passwords.js';
import { freePort } from '../../harness/ports.js';
import { CLI, runNode, type ServerProcess, startServerProcess } from '../../harness/process.js';

/** A running server picks up CLIENTS_FILE and USERS_FILE on SIGHUP, keeping what it had when a file is bad. */

const SECRET = 'reload-process-secret-0123456789abcdefghijklmnopq';

async function tokenStatus(server: ServerProcess, clientId: string, secret: string): Promise<number> {
  const res = await fetch(`${server.baseUrl}/oauth2/token`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: 'grant_type=client_credentials',
  });
  return res.status;
}

const count = (server: ServerProcess, message: string) => server.output().split(`"msg":"${message}"`).length - 1;

/** Sends SIGHUP and waits until each of `messages` is logged once more. */
async function hangUp(server: ServerProcess, ...messages: string[]): Promise<void> {
  const before = messages.map((message) => count(server, message));
  server.child.kill('SIGHUP');
  const deadline = Date.now() + 5000;
  while (messages.some((message, i) => count(server, message) === before[i])) {
    if (Date.now() > deadline) throw new Error(`not all of ${messages.join(', ')} after SIGHUP:\n${server.output()}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

t.test('SIGHUP reloads the clients and users files of a running server', async (t) => {
  const dir = await tempDir(t);
  const clientsFile = join(dir, 'clients.json');
  const usersFile = join(dir, 'users.json');
  await writeFile(
    clientsFile,
    JSON.stringify({ clients: [{ client_id: 'svc', client_secret_hash: hashClientSecret(SECRET), grant_types: ['client_credentials'] }] }),
  );
  await writeFile(usersFile, JSON.stringify({ users: [{ username: 'alice', password_hash: cheapPasswordHash('alice-password') }] }));
  const env = { CLIENTS_FILE: clientsFile, USERS_FILE: usersFile };
  const server = await startServerProcess(t, {
    ...env,
    PORT: String(await freePort()),
    KEYS_DIR: await keysDirWithSigningKey(t),
    KEYS_RELOAD_INTERVAL: '0',
  });

  // A client added with the CLI while the server runs works after SIGHUP, without a restart.
  const added = await runNode(CLI, ['clients', 'add', '--id', 'reports', '--scope', 'read'], env);
  t.equal(added.code, 0, added.stderr);
  const secret = /client_secret: (\S+)\n/.exec(added.stdout)?.[1] as string;
  t.equal(await tokenStatus(server, 'reports', secret), 401, 'unknown until the reload');
  await hangUp(server, 'clients reloaded', 'users reloaded', 'signing keys reloaded');
  t.equal(await tokenStatus(server, 'reports', secret), 200, 'the new client gets a token');
  t.equal(await tokenStatus(server, 'svc', SECRET), 200);
  t.match(server.output(), /"reason":"SIGHUP","file":"[^"]+clients\.json","clients":2,"msg":"clients reloaded"/);
  t.match(server.output(), /"reason":"SIGHUP","file":"[^"]+users\.json","users":1,"msg":"users reloaded"/);
  t.match(server.output(), /"msg":"signing keys reloaded"/, 'the keys reload on the same signal');

  // A corrupt clients file keeps the previous clients, says why, and the users file still reloads.
  const bob = await runNode(CLI, ['users', 'add', '--username', 'bob'], env, 'bob-password-1\n');
  t.equal(bob.code, 0, bob.stderr);
  const hash = JSON.parse(await readFile(clientsFile, 'utf8')).clients[1].client_secret_hash as string;
  await writeFile(clientsFile, `{"clients": [{"client_id": "reports", "client_secret_hash": ${hash.slice(0, 20)}`);
  await hangUp(server, 'clients reload failed; keeping the previous clients', 'users reloaded');
  const failure = `"reason":"SIGHUP","file":"${clientsFile}","err":{"type":"Object","message":"${clientsFile}: not valid JSON (Unexpected token 's')"`;
  t.ok(server.output().includes(failure), 'the log says which file failed and why');
  t.match(server.output(), /"users":2,"msg":"users reloaded"/, 'the users file reloaded all the same');
  t.equal(await tokenStatus(server, 'reports', secret), 200, 'the previous clients still work');
  t.equal(await tokenStatus(server, 'svc', SECRET), 200);

  for (const value of [secret, SECRET, hash, hash.slice(7, 20)]) t.notMatch(server.output(), value, 'no secret or hash in the log');
});

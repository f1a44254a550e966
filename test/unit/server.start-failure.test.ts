import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { ConfigError, loadConfig } from '../../src/config/index.js';
import { startServer } from '../../src/server.js';
import { keysDirWithSigningKey } from '../helpers/keys.js';
import { freePort } from '../../harness/ports.js';
import { writeRegistryFiles } from '../helpers/registry-files.js';

/** A port another socket holds, so a listen there fails with EADDRINUSE. */
async function takenPort(t: Test): Promise<number> {
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => blocker.close(() => resolve())));
  return (blocker.address() as { port: number }).port;
}

t.test('a server that cannot listen leaves nothing behind: no SIGHUP handler, no open listener', async (t) => {
  const { clientsFile, usersFile } = await writeRegistryFiles(t, []);
  const base = {
    KEYS_DIR: await keysDirWithSigningKey(t),
    CLIENTS_FILE: clientsFile,
    USERS_FILE: usersFile,
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
  };
  const hangupHandlers = process.listenerCount('SIGHUP');

  for (const [name, env] of [
    ['PORT in use', { PORT: String(await takenPort(t)) }],
    ['METRICS_PORT in use', { PORT: String(await freePort()), METRICS_PORT: String(await takenPort(t)) }],
  ] as const) {
    const port = Number(env.PORT);
    const config = loadConfig({ ...base, ISSUER: `http://127.0.0.1:${port}`, ...env });
    await t.rejects(startServer(config), { code: 'EADDRINUSE' }, name);
    t.equal(process.listenerCount('SIGHUP'), hangupHandlers, `${name}: the SIGHUP handler is removed`);
    if (name === 'METRICS_PORT in use') {
      // The public listener it had opened is closed again: the port is free for the next start.
      const probe = createServer();
      const bound = await new Promise<string>((resolve) =>
        probe.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? 'error')).listen(port, '127.0.0.1', () => resolve('bound')),
      );
      await new Promise<void>((resolve) => probe.close(() => resolve()));
      t.equal(bound, 'bound', 'the public port is free again');
    }
  }
});

t.test('a file or folder the server cannot use at start is named by its variable', async (t) => {
  const { clientsFile, usersFile, dir } = await writeRegistryFiles(t, []);
  const keysDir = await keysDirWithSigningKey(t);
  const base = { KEYS_DIR: keysDir, CLIENTS_FILE: clientsFile, USERS_FILE: usersFile, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'silent' };
  const missing = join(dir, 'nope.json');
  for (const [variable, env, message] of [
    ['USERS_FILE', { USERS_FILE: missing }, `USERS_FILE: ${missing}: no such file`],
    ['CLIENTS_FILE', { CLIENTS_FILE: missing }, `CLIENTS_FILE: ${missing}: no such file`],
    ['RESOURCES_FILE', { RESOURCES_FILE: missing }, `RESOURCES_FILE: ${missing}: no such file`],
    ['a directory', { USERS_FILE: dir }, `USERS_FILE: ${dir}: a directory, not a file`],
    [
      'KEYS_DIR',
      { KEYS_DIR: join(dir, 'no-keys') },
      `KEYS_DIR: cannot read keys folder ${join(dir, 'no-keys')}: no such folder (create it with "oauth2-token-service keys rotate")`,
    ],
  ] as const) {
    await t.rejects(startServer(loadConfig({ ...base, ...env })), { message }, variable);
  }
  await writeFile(join(dir, 'bad-users.json'), '{"users": [{"username": "a"}]}');
  await t.rejects(
    startServer(loadConfig({ ...base, USERS_FILE: join(dir, 'bad-users.json') })),
    { message: `USERS_FILE: ${join(dir, 'bad-users.json')}: user "a": password_hash: Invalid input: expected string, received undefined` },
    'each line of a file that does not validate names the variable',
  );
});

t.test('production: every refusal of the settings at once, before the keys are read; development starts', async (t) => {
  const web = { client_id: 'web', token_endpoint_auth_method: 'none', redirect_uris: ['https://web.example/cb'], scope: 'read' };
  const { clientsFile, usersFile, dir } = await writeRegistryFiles(t, [web]);
  const base = { CLIENTS_FILE: clientsFile, USERS_FILE: usersFile, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'silent' };
  const noKeys = { ...base, KEYS_DIR: join(dir, 'no-keys') };
  await t.rejects(
    startServer(loadConfig(noKeys), { production: true }),
    new ConfigError([
      'ISSUER is not set: set it to the public https URL of this server (ISSUER=https://auth.example.com), the iss of every token and the base of every endpoint URL',
      'SESSION_SECRET is not set, and users sign in with a browser (the client web of CLIENTS_FILE has the authorization_code grant): set SESSION_SECRET="$(openssl rand -base64 48)", the same on every instance',
    ]),
  );
  await t.rejects(
    startServer(loadConfig(noKeys)),
    { message: /^KEYS_DIR: cannot read keys folder/ },
    'development: only the keys are missing',
  );

  const ready = { ...base, KEYS_DIR: await keysDirWithSigningKey(t), ISSUER: 'https://auth.example.com' };
  const development = await startServer(loadConfig(ready));
  await development.stop();
  const production = await startServer(loadConfig({ ...ready, SESSION_SECRET: 'a-session-secret-of-at-least-32-characters' }), {
    production: true,
  });
  t.equal(production.app.server.listening, true, 'with SESSION_SECRET: production starts');
  await production.stop();
});

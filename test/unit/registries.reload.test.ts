import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Test } from 'tap';
import t from 'tap';
import { ClientRegistry } from '../../src/clients/registry.js';
import { hashClientSecret } from '../../src/clients/secret.js';
import { loadConfig } from '../../src/config/index.js';
import { sessionSecretProblem } from '../../src/config/production.js';
import { Registries } from '../../src/registries.js';
import { writeRegistryEntries } from '../../src/registry/file.js';
import { SubjectCollisionError } from '../../src/clients/subjects.js';
import { UserRegistry } from '../../src/users/registry.js';
import { tempDir } from '../helpers/keys.js';
import { cheapPasswordHash } from '../helpers/passwords.js';
import { buildTestServer } from '../helpers/server.js';
import { collision } from '../helpers/subject-collision.js';
import { TokenClient } from '../helpers/token-client.js';

/**
 * CLIENTS_FILE and USERS_FILE reloaded (on SIGHUP, src/server.ts): each on its own, the
 * previous registry kept when a file fails, the pair kept when it would collide, and the
 * routes and the sign-in service reading the new registries through the same objects.
 * test/e2e/registries.reload.test.ts sends the signal to a real process.
 */

const SECRET = 'reload-test-secret-0123456789abcdefghijklmnopqrstu';
const client = (id: string, grants = ['client_credentials', 'password']) => ({
  client_id: id,
  client_secret_hash: hashClientSecret(SECRET),
  grant_types: grants,
  scope: 'read',
});
const user = (username: string, sub?: string) => ({
  username,
  password_hash: cheapPasswordHash(`${username}-password`),
  ...(sub ? { sub } : {}),
});

async function files(t: Test, clients: unknown[], users: unknown[]) {
  const dir = await tempDir(t);
  const paths = { clients: join(dir, 'clients.json'), users: join(dir, 'users.json') };
  // As the CLI writes them: a temporary file renamed into place, so a reload never reads half a file.
  const write = {
    clients: (entries: unknown[]) => writeRegistryEntries(paths.clients, 'clients', entries),
    users: (entries: unknown[]) => writeRegistryEntries(paths.users, 'users', entries),
  };
  await write.clients(clients);
  await write.users(users);
  const registries = await Registries.open(paths, { sources: paths });
  return { paths, write, registries };
}

const ids = (registries: Registries) => ({
  clients: registries.clients.all().map((c) => c.clientId),
  users: registries.users.all().map((u) => u.username),
});

t.test('Registries.open loads both files and refuses a pair that collides', async (t) => {
  const { registries, paths, write } = await files(t, [client('svc')], [user('alice')]);
  t.same(ids(registries), { clients: ['svc'], users: ['alice'] });
  await write.users([user('svc')]);
  await t.rejects(
    Registries.open(paths, { sources: paths }),
    new SubjectCollisionError(collision('svc', paths.clients, 'svc', paths.users)),
  );
});

t.test('reload: the routes and the password grant see a new client and a new user', async (t) => {
  const { registries, paths, write } = await files(t, [client('svc')], []);
  const server = await buildTestServer(t, { clientRegistry: registries.clients, users: registries.users });
  const password = { grant_type: 'password', username: 'bob', password: 'bob-password', scope: 'read' };
  t.equal((await new TokenClient(server.app, 'new', SECRET).token({ grant_type: 'client_credentials' })).statusCode, 401);
  t.equal((await new TokenClient(server.app, 'svc', SECRET).token(password)).statusCode, 400, 'bob cannot sign in yet');

  await write.clients([client('svc'), client('new')]);
  await write.users([user('bob')]);
  t.same(await registries.reload(), [
    { registry: 'clients', file: paths.clients, ok: true, count: 2 },
    { registry: 'users', file: paths.users, ok: true, count: 1 },
  ]);
  t.equal((await new TokenClient(server.app, 'new', SECRET).token({ grant_type: 'client_credentials' })).statusCode, 200);
  t.equal((await new TokenClient(server.app, 'svc', SECRET).token(password)).statusCode, 200, 'bob signs in');

  await write.clients([client('new')]);
  await registries.reload();
  t.equal((await new TokenClient(server.app, 'svc', SECRET).token({ grant_type: 'client_credentials' })).statusCode, 401, 'removed');
});

t.test('reloads run one after the other: the last signal wins', async (t) => {
  const { registries, write } = await files(t, [client('svc')], []);
  await write.clients([client('svc'), client('first')]);
  const first = registries.reload();
  await write.clients([client('svc'), client('second')]);
  const second = registries.reload();
  t.match(await Promise.all([first, second]), [
    [{ ok: true, count: 2 }, { ok: true }],
    [{ ok: true, count: 2 }, { ok: true }],
  ]);
  t.same(ids(registries).clients, ['svc', 'second']);
});

t.test('a file that fails to load keeps its previous registry; the other one still reloads', async (t) => {
  const { registries, paths, write } = await files(t, [client('svc')], [user('alice')]);
  await writeFile(paths.clients, '{"clients": [');
  await write.users([user('alice'), user('bob')]);
  const [clients, users] = await registries.reload();
  t.match(clients, { registry: 'clients', file: paths.clients, ok: false, error: { message: `${paths.clients}: not valid JSON` } });
  t.same(users, { registry: 'users', file: paths.users, ok: true, count: 2 });
  t.same(ids(registries), { clients: ['svc'], users: ['alice', 'bob'] });

  await write.clients([client('svc'), client('other')]);
  await write.users([{ username: 'carol', password_hash: 'plain-text' }]);
  const [reloaded, refused] = await registries.reload();
  t.same(reloaded, { registry: 'clients', file: paths.clients, ok: true, count: 2 });
  t.match(refused, {
    ok: false,
    error: { message: `${paths.users}: user "carol": password_hash: must be the output of "oauth2-token-service password hash"` },
  });
  t.same(ids(registries), { clients: ['svc', 'other'], users: ['alice', 'bob'] });
});

t.test('a reload that would make a client id a user sub keeps the previous registries', async (t) => {
  const { registries, paths, write } = await files(t, [client('svc')], [user('alice')]);
  const error = { message: collision('bob', paths.clients, 'bob', paths.users) };

  await write.clients([client('svc'), client('bob')]);
  await write.users([user('alice'), user('bob')]);
  t.match(await registries.reload(), [
    { registry: 'clients', ok: false, error },
    { registry: 'users', ok: false, error },
  ]);
  t.same(ids(registries), { clients: ['svc'], users: ['alice'] }, 'both kept: the pair served never collides');

  await write.users([user('alice'), user('bob', 'svc')]);
  await write.clients([client('svc')]);
  const [clients, users] = await registries.reload();
  t.match(users, { ok: false, error: { message: collision('svc', paths.clients, 'bob', paths.users) } }, 'new users against the clients');
  t.match(clients, { ok: false });
  t.same(ids(registries), { clients: ['svc'], users: ['alice'] });

  await write.users([user('alice'), user('bob')]);
  await write.clients([client('svc'), { ...client('bob', ['authorization_code']), redirect_uris: ['https://a.example/cb'] }]);
  t.match(await registries.reload(), [{ ok: true }, { ok: true }], 'a client without client_credentials may share a name with a user');
  t.same(ids(registries), { clients: ['svc', 'bob'], users: ['alice', 'bob'] });
});

t.test('production without SESSION_SECRET: a reload that brings the first browser client keeps the previous clients', async (t) => {
  const dir = await tempDir(t);
  const paths = { clients: join(dir, 'clients.json'), users: join(dir, 'users.json') };
  await writeRegistryEntries(paths.clients, 'clients', [client('svc')]);
  await writeRegistryEntries(paths.users, 'users', [user('alice')]);
  const config = loadConfig({ ISSUER: 'https://auth.example.com' });
  const registries = await Registries.open(paths, { sources: paths, refuseClients: (next) => sessionSecretProblem(config, next) });
  const web = { ...client('web', ['authorization_code']), redirect_uris: ['https://web.example/cb'] };
  await writeRegistryEntries(paths.clients, 'clients', [client('svc'), web]);
  await writeRegistryEntries(paths.users, 'users', [user('alice'), user('bob')]);
  t.same(await registries.reload(), [
    {
      registry: 'clients',
      file: paths.clients,
      ok: false,
      error: new Error(
        'SESSION_SECRET is not set, and users sign in with a browser (the client web of CLIENTS_FILE has the authorization_code grant): set SESSION_SECRET="$(openssl rand -base64 48)", the same on every instance',
      ),
    },
    { registry: 'users', file: paths.users, ok: true, count: 2 },
  ]);
  t.same(ids(registries), { clients: ['svc'], users: ['alice', 'bob'] }, 'the users still reload');
  await writeRegistryEntries(paths.clients, 'clients', [client('svc'), client('other')]);
  t.match(await registries.reload(), [{ registry: 'clients', ok: true, count: 2 }], 'machines only: taken');
});

t.test('registries given in code (the dev entry) are not reloaded', async (t) => {
  const dir = await tempDir(t);
  const usersFile = join(dir, 'users.json');
  await writeFile(usersFile, JSON.stringify({ users: [user('alice')] }));
  const demo = ClientRegistry.fromMetadata([client('demo-client')]);
  const registries = await Registries.open(
    { clients: join(dir, 'not-read.json'), users: usersFile },
    { clients: demo, sources: { clients: 'the demo client', users: usersFile } },
  );
  await writeFile(usersFile, JSON.stringify({ users: [user('alice'), user('demo-client')] }));
  t.match(await registries.reload(), [
    { registry: 'users', ok: false, error: { message: collision('demo-client', 'the demo client', 'demo-client', usersFile) } },
  ]);
  t.same(ids(registries), { clients: ['demo-client'], users: ['alice'] });
  const none = await Registries.open(
    { clients: undefined, users: undefined },
    { users: UserRegistry.fromEntries([]), sources: { clients: 'CLIENTS_FILE', users: 'USERS_FILE' } },
  );
  t.same(await none.reload(), [], 'nothing to reload');
});

t.test('RESOURCES_FILE reloads on its own: a valid file is taken, a broken one keeps the previous resources', async (t) => {
  const dir = await tempDir(t);
  const resourcesFile = join(dir, 'resources.json');
  const write = (entries: unknown[]) => writeFile(resourcesFile, JSON.stringify({ resources: entries }));
  await write([{ resource: 'https://mcp.example.com/mcp', scope: 'tools' }]);
  const registries = await Registries.open(
    { clients: undefined, users: undefined, resources: resourcesFile },
    { sources: { clients: 'CLIENTS_FILE', users: 'USERS_FILE' } },
  );
  const uris = () => registries.resources.all().map((r) => r.resource);
  t.same(uris(), ['https://mcp.example.com/mcp']);

  await write([
    { resource: 'https://mcp.example.com/mcp', scope: 'tools' },
    { resource: 'https://api.example.com/', scope: 'read' },
  ]);
  t.same(await registries.reload(), [{ registry: 'resources', file: resourcesFile, ok: true, count: 2 }]);
  t.same(uris(), ['https://mcp.example.com/mcp', 'https://api.example.com/']);
  t.same(registries.resources.get('https://api.example.com/')?.scope, ['read'], 'the new resource is served at once');

  await write([{ resource: 'https://api.example.com/#fragment' }]);
  t.match(await registries.reload(), [
    { registry: 'resources', file: resourcesFile, ok: false, error: { message: /must not have a fragment/ } },
  ]);
  t.same(uris(), ['https://mcp.example.com/mcp', 'https://api.example.com/'], 'a broken file keeps the previous resources');
});

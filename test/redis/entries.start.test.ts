import t from 'tap';
import { newClientSecret } from '../../src/admin/clients.js';
import { hashClientSecret } from '../../src/clients/secret.js';
import { loadConfig } from '../../src/config/index.js';
import { SEALED_CLIENT_SECRET } from '../../src/entries/registries.js';
import { SealedSecrets } from '../../src/entries/sealed-secrets.js';
import { startServer } from '../../src/server.js';
import { freePort } from '../../harness/ports.js';
import { QUIET_NODE, startRedisProcess } from '../../harness/redis.js';
import { postAsClient } from '../helpers/http-browser.js';
import { keysDirWithSigningKey } from '../helpers/keys.js';
import { capturedLogger } from '../helpers/logs.js';
import { redisStore } from '../helpers/redis-stores.js';
import { writeRegistryFiles } from '../helpers/registry-files.js';

/**
 * startServer and the store's entries: a Redis down at start costs one line, the files serve,
 * and the entries arrive once it answers; provider entries need the key they are sealed under.
 */

const SECRET = 'file-client-secret-0123456789abcdefghijklmnopq';
const FILE_CLIENT = { client_id: 'svc', client_secret_hash: hashClientSecret(SECRET), grant_types: ['client_credentials'], scope: 'read' };
const WEB = {
  client_id: 'web',
  client_secret_hash: hashClientSecret(SECRET),
  redirect_uris: ['https://app.example.com/cb'],
  grant_types: ['authorization_code'],
  scope: 'read',
};

async function baseEnv(t: Parameters<typeof writeRegistryFiles>[0]) {
  const { clientsFile, usersFile } = await writeRegistryFiles(t, [FILE_CLIENT, WEB]);
  return { KEYS_DIR: await keysDirWithSigningKey(t), CLIENTS_FILE: clientsFile, USERS_FILE: usersFile, HOST: '127.0.0.1', PORT: '0' };
}

t.test('Redis down at start: the server starts from its files, says so once, and catches up when Redis answers', async (t) => {
  const redisPort = await freePort();
  const log = capturedLogger('info');
  const config = loadConfig({
    ...(await baseEnv(t)),
    REDIS_URL: `redis://127.0.0.1:${redisPort}`,
    REDIS_KEY_PREFIX: 'start:',
    ENTRIES_SYNC_INTERVAL: '1',
  });
  const server = await startServer(config, { logger: log.logger as never });
  t.teardown(() => server.stop());
  const token = (client: { id: string; secret: string }) =>
    postAsClient(`${server.address}/oauth2/token`, client, { grant_type: 'client_credentials' });
  t.equal((await token({ id: 'svc', secret: SECRET })).status, 200, 'the file client gets tokens');
  const entryLines = () => log.lines().filter((line) => line.includes('"msg":"entries:'));
  t.same(
    entryLines().map((line) => JSON.parse(line).msg),
    ['entries: the store does not answer; serving the entries last seen (and the files) until it does'],
  );

  const redis = await startRedisProcess(t, redisPort, ['--port', String(redisPort), ...QUIET_NODE]);
  const writer = await redisStore(t, { redis: { ...redis, topology: { kind: 'standalone', url: redis.url } }, keyPrefix: 'start:' });
  const { secret, hash } = newClientSecret();
  await writer.store.entries.createEntry('client', 'reporting', {
    client_id: 'reporting',
    client_secret_hash: hash,
    grant_types: ['client_credentials'],
  });
  const from = Date.now();
  while ((await token({ id: 'reporting', secret })).status !== 200) {
    if (Date.now() - from > 8000) throw new Error('the store client never arrived');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  t.comment(`the store's client served ${Date.now() - from} ms after it was written`);
  t.same(
    entryLines().map((line) => JSON.parse(line).msg),
    [
      'entries: the store does not answer; serving the entries last seen (and the files) until it does',
      'entries: the store answers again; caught up',
    ],
    'one line when it answers again',
  );
});

t.test('identity provider entries in the store: the start needs ENTRIES_ENCRYPTION_KEY', async (t) => {
  const writer = await redisStore(t);
  const key = 'entries-encryption-key-0123456789abcdef';
  const document = {
    id: 'corp',
    type: 'oidc',
    name: 'Corp',
    issuer: 'https://login.corp.example.com',
    client_id: 'ours',
    [SEALED_CLIENT_SECRET]: new SealedSecrets(key).seal('corp', 'upstream-secret'),
  };
  await writer.store.entries.createEntry('provider', 'corp', document);
  const env = { ...(await baseEnv(t)), REDIS_URL: writer.redis.url, REDIS_KEY_PREFIX: writer.keyPrefix, LOG_LEVEL: 'silent' };
  await t.rejects(startServer(loadConfig(env)), {
    message:
      'ENTRIES_ENCRYPTION_KEY: the store holds 1 identity provider entries, whose client secrets are sealed under it: set it (the key they were sealed with)',
  });
  const server = await startServer(loadConfig({ ...env, ENTRIES_ENCRYPTION_KEY: key }));
  t.teardown(() => server.stop());
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: 'web',
    redirect_uri: 'https://app.example.com/cb',
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    code_challenge_method: 'S256',
  });
  const login = await fetch(`${server.address}/oauth2/authorize?${query}`);
  t.equal(login.status, 200);
  t.match(await login.text(), 'Corp', 'the login page offers the provider of the store, its secret opened');
});

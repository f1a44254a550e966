import { Redis } from 'ioredis';
import t, { type Test } from 'tap';
import { expectOAuthError } from '../helpers/oauth-error.js';
import { startPrivateRedis } from '../../harness/redis.js';
import { NATIVE_CLIENT, registrationServer, WEB_CLIENT } from '../helpers/registration.js';
import { redisStore, type StandaloneTestStore } from '../helpers/redis-stores.js';
import { TokenClient } from '../helpers/token-client.js';
import { registrationManagementSuite } from '../suites/registration-management.js';
import { registrationMetadataSuite } from '../suites/registration-metadata.js';
import { registrationSuite } from '../suites/registration.js';

registrationMetadataSuite(t, 'real Redis', redisStore);
registrationSuite(t, 'real Redis', redisStore);
registrationManagementSuite(t, 'real Redis', redisStore);

function inspect(t: Test, opened: StandaloneTestStore): Redis {
  const inspector = new Redis(opened.redis.url);
  t.teardown(() => inspector.quit());
  return inspector;
}

/** Calls of each Redis command since the last CONFIG RESETSTAT (scripts' inner calls included). */
async function commandCalls(redis: Redis): Promise<Record<string, number>> {
  const info = await redis.info('commandstats');
  return Object.fromEntries([...info.matchAll(/^cmdstat_([a-z|]+):calls=(\d+)/gm)].map((m) => [m[1] as string, Number(m[2])]));
}

t.test('a registration is one key, its own hash tag, with a TTL, holding digests only; listed for the admin API', async (t) => {
  const opened = await redisStore(t);
  const inspector = inspect(t, opened);
  const server = await registrationServer(t, opened);
  const info = await server.registered(t, WEB_CLIENT);
  const key = `${opened.keyPrefix}client:{${info.client_id}}`;
  const listing = [`${opened.keyPrefix}{registrations}:ids`, `${opened.keyPrefix}{registrations}:expiries`];
  const keys = (await inspector.keys(`${opened.keyPrefix}*`)).filter((k) => !k.includes('attempts:'));
  t.same(keys.sort(), [key, ...listing].sort());
  for (const listed of [key, ...listing]) {
    const ttl = await inspector.pttl(listed);
    t.ok(ttl > 2_591_990_000 && ttl <= 2_592_000_000, `${listed}: TTL ${ttl} ms: DYNAMIC_CLIENT_TTL`);
  }
  t.same(await inspector.zrange(listing[0] as string, 0, -1), [info.client_id], 'listed by its id alone');
  const stored = (await inspector.get(key)) as string;
  t.notMatch(stored, info.client_secret as string, 'not the client secret');
  t.notMatch(stored, info.registration_access_token, 'not the registration access token');
  t.match(JSON.parse(stored), {
    clientId: info.client_id,
    clientSecretHash: /^sha256:/,
    registrationTokenHash: /^sha256:/,
    metadata: { client_name: WEB_CLIENT.client_name, redirect_uris: WEB_CLIENT.redirect_uris },
  });
});

t.test('using a client costs one read per request and at most one write an hour', async (t) => {
  const opened = await redisStore(t);
  const inspector = inspect(t, opened);
  const server = await registrationServer(t, opened, { DYNAMIC_CLIENT_GRANTS: 'client_credentials' });
  const info = await server.registered(t, { grant_types: ['client_credentials'] });
  const client = new TokenClient(server.app, info.client_id, info.client_secret as string);
  const requests = async (count: number) => {
    for (let i = 0; i < count; i += 1) t.equal((await client.token({ grant_type: 'client_credentials' })).statusCode, 200);
  };
  await inspector.config('RESETSTAT');
  await requests(100);
  let calls = await commandCalls(inspector);
  t.equal((calls.evalsha ?? 0) + (calls.eval ?? 0), 100, 'one script call (GET and PTTL) per token request');
  t.equal(calls.pexpire ?? 0, 0, 'no write while the registration was restarted less than an hour ago');
  await server.advance(3600);
  await inspector.config('RESETSTAT');
  await requests(100);
  calls = await commandCalls(inspector);
  t.equal(calls.pexpire, 4, "one restart of the expiry for 100 requests an hour later: the record's, and its listing's three keys");
  t.notOk(calls.set, 'no other write');
});

t.test('two instances on one Redis: registered at A, used and deleted at B', async (t) => {
  const a = await redisStore(t);
  const b = await redisStore(t, { keyPrefix: a.keyPrefix, clock: a.clock });
  const serverA = await registrationServer(t, a);
  const serverB = await registrationServer(t, b);
  const info = await serverA.registered(t, WEB_CLIENT);
  const atB = new TokenClient(serverB.app, info.client_id, info.client_secret as string);
  t.equal((await atB.revoke('anything')).statusCode, 200, 'B authenticates the client A registered');
  t.equal((await serverB.manage('GET', info.client_id, info.registration_access_token)).statusCode, 200);
  t.equal((await serverB.manage('DELETE', info.client_id, info.registration_access_token)).statusCode, 204);
  const atA = new TokenClient(serverA.app, info.client_id, info.client_secret as string);
  expectOAuthError(t, await atA.revoke('anything'), { status: 401, error: 'invalid_client', description: 'client authentication failed' });
});

t.test('Redis down: registration answers 503 and registers nothing; a registered client cannot authenticate', async (t) => {
  const redis = await startPrivateRedis(t);
  const opened = await redisStore(t, { redis, commandTimeoutMs: 300 });
  const server = await registrationServer(t, opened);
  const info = await server.registered(t, NATIVE_CLIENT);
  await redis.kill();
  expectOAuthError(t, await server.register(NATIVE_CLIENT), {
    status: 503,
    error: 'temporarily_unavailable',
    description: 'the token store is unavailable: retry after 5 seconds',
    headers: { 'retry-after': '5' },
  });
  expectOAuthError(t, await server.manage('GET', info.client_id, info.registration_access_token), {
    status: 503,
    error: 'temporarily_unavailable',
    description: 'the token store is unavailable: retry after 5 seconds',
  });
  expectOAuthError(t, await new TokenClient(server.app, info.client_id, null).token({ grant_type: 'authorization_code', code: 'x' }), {
    status: 500,
    error: 'server_error',
    description: 'the authorization server encountered an unexpected condition',
  });
});

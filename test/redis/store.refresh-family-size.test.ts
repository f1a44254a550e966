import t, { type Test } from 'tap';
import { Redis } from 'ioredis';
import { mintOpaqueToken, newGrantId } from '../../src/tokens/opaque.js';
import { WEB_REDIRECT } from '../helpers/authorize-fixtures.js';
import { type StandaloneTestStore, redisStore } from '../helpers/redis-stores.js';
import { setup } from '../suites/refresh-token.js';

/**
 * Issue 15: a refresh family keeps a constant size in Redis however often it rotates
 * (reuse detection intact), and a rotation or a code redemption is one script call, one
 * round trip.
 */

/**
 * Records the commands clients send (MONITOR), leaving out those a script runs inside
 * Redis (source `lua`) and the entry sync's periodic read of `{entries}:version` (every
 * ENTRIES_SYNC_INTERVAL, in the background: a loaded host saw it inside a counted request):
 * what is left is one entry per command on the wire.
 */
async function commandMonitor(t: Test, port: number) {
  const seen: string[] = [];
  const monitor = await new Redis({ port, host: '127.0.0.1', lazyConnect: true }).monitor();
  monitor.on('monitor', (_time: string, args: string[], source: string) => {
    if (source !== 'lua' && !args[1]?.endsWith('{entries}:version')) seen.push((args[0] as string).toLowerCase());
  });
  t.teardown(() => monitor.disconnect());
  /** The commands `work` sent: name → count. */
  return async (work: () => Promise<unknown>): Promise<Record<string, number>> => {
    // Let the monitor catch up with what came before: only `work` is counted.
    await new Promise((resolve) => setTimeout(resolve, 100));
    seen.length = 0;
    await work();
    await new Promise((resolve) => setTimeout(resolve, 100));
    const counts: Record<string, number> = {};
    for (const name of seen) counts[name] = (counts[name] ?? 0) + 1;
    return counts;
  };
}

/** `MEMORY USAGE` of every key of one grant (its hash tag), by key suffix. */
async function grantKeys(redis: Redis, opened: StandaloneTestStore, grantId: string): Promise<Record<string, number>> {
  const keys = await redis.keys(`${opened.keyPrefix}{${grantId}}*`);
  const usage: Record<string, number> = {};
  for (const key of keys)
    usage[key.slice(`${opened.keyPrefix}{${grantId}}`.length)] = Number(await redis.call('MEMORY', 'USAGE', key, 'SAMPLES', '0'));
  return usage;
}

const total = (usage: Record<string, number>) => Object.values(usage).reduce((sum, bytes) => sum + bytes, 0);

async function familyServer(t: Test, grace: string) {
  const opened = await redisStore(t);
  const server = await setup(t, async () => opened, { REFRESH_REUSE_GRACE: grace });
  const redis = (await opened.raw()) as Redis;
  const web = server.clientNamed('web');
  /** A code saved as the authorization endpoint saves it. */
  const newCode = async () => {
    const code = mintOpaqueToken(newGrantId());
    const record = { clientId: 'web', redirectUri: WEB_REDIRECT, redirectUriSent: true, scope: ['read'], sub: 'user-alice' };
    await opened.store.saveAuthorizationCode(code.ref, { ...record, authTime: 1_700_000_000, codeChallenge: undefined }, 60);
    return code;
  };
  /** Redeems a code: the family's first token. */
  const redeem = async (code: { value: string }) => {
    const res = await web.token({ grant_type: 'authorization_code', code: code.value, redirect_uri: WEB_REDIRECT });
    t.equal(res.statusCode, 200, 'redeemed');
    return res.json().refresh_token as string;
  };
  const rotate = async (token: string) => {
    const res = await web.refresh(token);
    t.equal(res.statusCode, 200, 'rotated');
    return res.json().refresh_token as string;
  };
  // The first requests load the refresh-token key (once per process) and the scripts (once
  // per Redis, EVALSHA then EVAL): not what is measured.
  await rotate(await redeem(await newCode()));
  return { opened, redis, newCode, redeem, rotate, web };
}

t.test('one script call, one round trip, per code redemption and per rotation', async (t) => {
  const { opened, newCode, redeem, rotate } = await familyServer(t, '10');
  const commandsOf = await commandMonitor(t, opened.redis.port);
  const code = await newCode();
  let token = '';
  t.same(
    await commandsOf(async () => (token = await redeem(code))),
    { evalsha: 1 },
    'code redemption: one script (consume, start the family)',
  );
  for (let i = 1; i <= 3; i += 1) {
    t.same(await commandsOf(async () => (token = await rotate(token))), { evalsha: 1 }, `rotation ${i}: one script`);
  }
});

t.test('a family keeps a constant size in Redis, however often it rotates', async (t) => {
  for (const grace of ['0', '10']) {
    t.test(`REFRESH_REUSE_GRACE=${grace}`, async (t) => {
      const { opened, redis, newCode, redeem, rotate, web } = await familyServer(t, grace);
      const code = await newCode();
      const grantId = code.ref.grantId;
      const refreshToken = await redeem(code);
      const sizes = new Map<number, Record<string, number>>([[0, await grantKeys(redis, opened, grantId)]]);
      const tokens = [refreshToken];
      for (let rotations = 1; rotations <= 100; rotations += 1) {
        tokens.push(await rotate(tokens[tokens.length - 1] as string));
        if ([1, 10, 100].includes(rotations)) sizes.set(rotations, await grantKeys(redis, opened, grantId));
      }
      const [after1, after10, after100] = [1, 10, 100].map((n) => sizes.get(n) ?? {}) as [
        Record<string, number>,
        Record<string, number>,
        Record<string, number>,
      ];
      const keys = grace === '0' ? [':code:', ':family'] : [':code:', ':family', ':grace'];
      t.same(
        Object.keys(after100)
          .map((k) => k.replace(/:code:.*/, ':code:'))
          .sort(),
        keys.sort(),
        'the same keys after 100 rotations',
      );
      t.same(Object.keys(after10).sort(), Object.keys(after1).sort());
      t.ok(
        total(after100) <= total(after1) + 8,
        `bytes after 1, 10, 100 rotations: ${total(after1)}, ${total(after10)}, ${total(after100)}`,
      );
      t.ok(total(after10) <= total(after1) + 8);
      t.comment(`grant keys after 0 rotations: ${JSON.stringify(sizes.get(0))}; after 100: ${JSON.stringify(after100)}`);
      if (grace !== '0') {
        await opened.advance(11);
        const expired = await grantKeys(redis, opened, grantId);
        t.notOk(':grace' in expired, 'the grace record expires');
        t.ok(total(expired) < total(after100), 'what stays after the window is smaller still');
      }
      // Reuse detection intact: the token of 50 rotations ago revokes the family.
      const stale = await web.refresh(tokens[50] as string);
      t.equal(stale.statusCode, 400);
      t.equal(stale.json().error_description, 'the refresh token was already used: every token of this grant is now revoked');
      t.equal(await opened.store.isGrantRevoked(grantId), true);
    });
  }
});

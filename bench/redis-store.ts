import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { RedisStore } from '../src/store/redis.js';
import type { RedisTopology } from '../src/store/redis-connection.js';
import type { AuthorizationCodeRecord, CodeRedemption } from '../src/store/types.js';
import { mintOpaqueToken, newGrantId } from '../src/tokens/opaque.js';
import { newRefreshTokenHead } from '../src/tokens/refresh-token-format.js';
import type { Teardown } from '../harness/process.js';
import { onFreePorts, QUIET_NODE, startPrivateRedis, startRedisProcess } from '../harness/redis.js';
import { freePort } from '../harness/ports.js';
import { startRedisCluster } from '../harness/redis-cluster.js';
import { inSync, nodeCommand, waitFor } from '../harness/redis-nodes.js';

/**
 * What the Redis side costs, measured on private redis-server processes:
 *   sizing       memory per stored item (MEMORY USAGE of one key, and used_memory over many)
 *   replica-ack  the latency and throughput cost of REDIS_MIN_REPLICAS_ACK=1 on a 3 + 3 cluster,
 *                and on one primary with one replica (as behind Sentinel)
 * Usage: npm run bench:redis -- [sizing|replica-ack] (both by default)
 */

const PREFIX = 'oauth:';
/** A realistic record: an OpenID-style scope, a UUID subject, a PKCE challenge. */
const CODE: AuthorizationCodeRecord = {
  clientId: 'webapp-7f3a9c2e',
  redirectUri: 'https://app.example.com/oauth/callback',
  redirectUriSent: true,
  scope: ['openid', 'profile', 'email', 'read'],
  sub: '2f1c6a4e-8b7d-4c1e-9a3f-5d2e7b8c9a10',
  authTime: 1_760_000_000,
  codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
};
const REDEEM: CodeRedemption = { revocationMarkSeconds: 600 };
const LIFETIMES = { absoluteSeconds: 2_592_000, idleSeconds: 1_209_600 };
/** A sealed grace response is about this long: an access token and a refresh token, encrypted, base64url. */
const SEALED = 'x'.repeat(1100);

const cleanups: (() => unknown)[] = [];
const teardown: Teardown = { teardown: (cleanup) => void cleanups.push(cleanup) };

function openStore(topology: RedisTopology, minReplicas = 0): Promise<RedisStore> {
  const store = new RedisStore({
    connection: { topology, commandTimeoutMs: 2000 },
    keyPrefix: PREFIX,
    replicaAck: { minReplicas, timeoutMs: 500 },
  });
  cleanups.push(() => store.close());
  return store.connect().then(() => store);
}

async function usedMemory(admin: Redis): Promise<number> {
  return Number(/used_memory:(\d+)/.exec(await admin.info('memory'))?.[1]);
}

/** Bytes per item: used_memory before and after `count` calls of `add`, divided. */
async function perItem(admin: Redis, count: number, add: (i: number) => Promise<unknown>): Promise<number> {
  const before = await usedMemory(admin);
  for (let i = 0; i < count; i += 100) await Promise.all(Array.from({ length: Math.min(100, count - i) }, (_, j) => add(i + j)));
  return Math.round(((await usedMemory(admin)) - before) / count);
}

async function sizing(): Promise<void> {
  const redis = await startPrivateRedis(teardown);
  const admin = new Redis(redis.url);
  cleanups.push(() => admin.quit());
  const store = await openStore(redis.topology);
  const usage = async (key: string) => Number(await admin.call('MEMORY', 'USAGE', key, 'SAMPLES', '0'));

  const grantId = newGrantId();
  const code = mintOpaqueToken(grantId);
  await store.saveAuthorizationCode(code.ref, CODE, 600);
  const codeKey = `${PREFIX}{${grantId}}:code:${code.ref.digest}`;
  const codeBytes = await usage(codeKey);
  const first = newRefreshTokenHead(grantId, 0);
  await store.redeemAuthorizationCode(code.ref, {
    revocationMarkSeconds: 600,
    firstRefreshToken: { digest: first.digest, lifetimes: LIFETIMES },
  });
  const usedCodeBytes = await usage(codeKey);
  const familyBytes = await usage(`${PREFIX}{${grantId}}:family`);
  const second = newRefreshTokenHead(grantId, 1);
  await store.rotateRefreshFamily(first, second.digest, SEALED, { idleSeconds: LIFETIMES.idleSeconds, graceSeconds: 10 });
  const rotatedFamilyBytes = await usage(`${PREFIX}{${grantId}}:family`);
  const graceBytes = await usage(`${PREFIX}{${grantId}}:grace`);
  await store.denylistAccessToken('Vb3k9Qm2xL7pT4wZ8rN1sA', 3600);
  const jtiBytes = await usage(`${PREFIX}jti:Vb3k9Qm2xL7pT4wZ8rN1sA`);
  await store.attempts.reserveAttempt('username:alice@example.com', 5, 900);
  const attemptKeys = await admin.keys(`${PREFIX}attempts:*`);
  const counterKey = attemptKeys.find((key) => !key.endsWith(':checking')) as string;
  const attemptBytes = await usage(counterKey);
  const inFlightBytes = await usage(`${counterKey}:checking`);

  const N = 20_000;
  const codeItem = await perItem(admin, N, () => store.saveAuthorizationCode(mintOpaqueToken(newGrantId()).ref, CODE, 600));
  const startFamily = async () => {
    const id = newGrantId();
    const head = newRefreshTokenHead(id, 0);
    await store.startRefreshFamily(id, { digest: head.digest, lifetimes: LIFETIMES });
    return head;
  };
  const familyItem = await perItem(admin, N, startFamily);
  const rotatedFamilyItem = (rotations: number) =>
    perItem(admin, 2000, async () => {
      let current = await startFamily();
      for (let r = 0; r < rotations; r += 1) {
        const next = newRefreshTokenHead(current.grantId, current.generation + 1);
        // Grace off: the sealed response lives REFRESH_REUSE_GRACE seconds only, not in the steady state.
        await store.rotateRefreshFamily(current, next.digest, SEALED, { idleSeconds: LIFETIMES.idleSeconds, graceSeconds: 0 });
        current = next;
      }
    });
  const [onceRotatedItem, tenTimesRotatedItem] = [await rotatedFamilyItem(1), await rotatedFamilyItem(10)];
  const jtiItem = await perItem(admin, N, (i) => store.denylistAccessToken(`${newGrantId()}${i}`, 3600));

  const lines = [
    'sizing (redis-server ' + /redis_version:(\S+)/.exec(await admin.info('server'))?.[1] + `, prefix "${PREFIX}")`,
    '  MEMORY USAGE of one key, bytes:',
    `    authorization code ${codeBytes}, after use (tombstone) ${usedCodeBytes}`,
    `    refresh family (constant size) ${familyBytes} with its first token, ${rotatedFamilyBytes} after rotations`,
    `    grace record (sealed response, lives REFRESH_REUSE_GRACE s) ${graceBytes}`,
    `    denylisted access token ${jtiBytes}; sign-in attempt counter ${attemptBytes}, its attempts in flight ${inFlightBytes} (while one is)`,
    '  used_memory per item, bytes (keys, values, TTLs, dictionary overhead):',
    `    authorization code ${codeItem}`,
    `    refresh family with its first token ${familyItem}`,
    `    refresh family after 1 rotation ${onceRotatedItem}, after 10 rotations ${tenTimesRotatedItem} (constant: the first rotation adds the previous token's digest)`,
    `    denylisted access token ${jtiItem}`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

interface Latency {
  readonly p50: number;
  readonly p99: number;
}

function percentiles(samples: number[]): Latency {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => Number((sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0).toFixed(2));
  return { p50: at(0.5), p99: at(0.99) };
}

/** Sequential latency of code consumption and refresh rotation, then consumption throughput with 64 in flight. */
async function measureWrites(store: RedisStore): Promise<{ consume: Latency; rotate: Latency; throughput: number }> {
  const consume: number[] = [];
  for (let i = 0; i < 2000; i += 1) {
    const code = mintOpaqueToken(newGrantId());
    await store.saveAuthorizationCode(code.ref, CODE, 600);
    const started = performance.now();
    await store.redeemAuthorizationCode(code.ref, REDEEM);
    consume.push(performance.now() - started);
  }
  const rotate: number[] = [];
  let current = newRefreshTokenHead(newGrantId(), 0);
  await store.startRefreshFamily(current.grantId, { digest: current.digest, lifetimes: LIFETIMES });
  for (let i = 0; i < 2000; i += 1) {
    const next = newRefreshTokenHead(current.grantId, current.generation + 1);
    const started = performance.now();
    await store.rotateRefreshFamily(current, next.digest, SEALED, { idleSeconds: 3600, graceSeconds: 10 });
    rotate.push(performance.now() - started);
    current = next;
  }
  // Saved 500 at a time: 20 000 at once passed the command timeout on a slow host.
  const codes: ReturnType<typeof mintOpaqueToken>['ref'][] = [];
  for (let batch = 0; batch < 40; batch += 1) {
    codes.push(
      ...(await Promise.all(
        Array.from({ length: 500 }, async () => {
          const code = mintOpaqueToken(newGrantId());
          await store.saveAuthorizationCode(code.ref, CODE, 600);
          return code.ref;
        }),
      )),
    );
  }
  const started = performance.now();
  await Promise.all(
    Array.from({ length: 64 }, async () => {
      for (let code = codes.pop(); code; code = codes.pop()) await store.redeemAuthorizationCode(code, REDEEM);
    }),
  );
  return {
    consume: percentiles(consume),
    rotate: percentiles(rotate),
    throughput: Math.round(20_000 / ((performance.now() - started) / 1000)),
  };
}

/** Microseconds of Redis CPU per top-level command (INFO commandstats), summed over the nodes. */
async function cpuPerCall(ports: number[]): Promise<string> {
  const totals = new Map<string, { calls: number; usec: number }>();
  for (const port of ports) {
    const info = String(await nodeCommand(port, 'INFO', 'commandstats'));
    for (const [, name, calls, usec] of info.matchAll(/^cmdstat_(\w+):calls=(\d+),usec=(\d+)/gm)) {
      if (['config', 'info', 'cluster', 'ping', 'readonly'].includes(name as string)) continue;
      const total = totals.get(name as string) ?? { calls: 0, usec: 0 };
      totals.set(name as string, { calls: total.calls + Number(calls), usec: total.usec + Number(usec) });
    }
  }
  return [...totals]
    .filter(([, { calls }]) => calls >= 1000)
    .map(([name, { calls, usec }]) => `${name} ${(usec / calls).toFixed(1)} µs`)
    .join(', ');
}

async function replicaAck(): Promise<void> {
  const cluster = await startRedisCluster(teardown);
  const primary = await startPrivateRedis(teardown);
  const replica = await onFreePorts(async () => {
    const port = await freePort();
    return startRedisProcess(teardown, port, ['--port', String(port), ...QUIET_NODE, '--replicaof', '127.0.0.1', String(primary.port)]);
  });
  await waitFor('the replica in sync', () => inSync(replica.port), 10_000);
  const topologies = [
    { name: '3 + 3 cluster', topology: cluster.topology, primaries: async () => (await cluster.primaries()).map((node) => node.port) },
    { name: 'one primary and one replica', topology: primary.topology, primaries: async () => [primary.port] },
  ];
  const lines = ['replica-ack (on loopback, one client process; latency per store call, ms)'];
  for (const { name, topology, primaries } of topologies) {
    lines.push(`  ${name}:`);
    for (const minReplicas of [0, 1]) {
      const ports = await primaries();
      await Promise.all(ports.map((port) => nodeCommand(port, 'CONFIG', 'RESETSTAT')));
      const { consume, rotate, throughput } = await measureWrites(await openStore(topology, minReplicas));
      lines.push(
        `    REDIS_MIN_REPLICAS_ACK=${minReplicas}: consume code p50 ${consume.p50} p99 ${consume.p99}; ` +
          `rotate refresh token p50 ${rotate.p50} p99 ${rotate.p99}; ${throughput} consumptions/s with 64 in flight`,
        `      Redis CPU per call on the primaries: ${await cpuPerCall(ports)}`,
      );
    }
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

async function main(): Promise<void> {
  const { positionals } = parseArgs({ args: process.argv.slice(2), allowPositionals: true, strict: true });
  const parts = positionals.length ? positionals : ['sizing', 'replica-ack'];
  for (const part of parts) {
    if (part === 'sizing') await sizing();
    else if (part === 'replica-ack') await replicaAck();
    else throw new Error(`unknown part ${part}: npm run bench:redis -- [sizing|replica-ack]`);
  }
}

main()
  .catch((err: Error) => {
    process.stderr.write(`error: ${err.message}\n`);
    process.exitCode = 1;
  })
  .finally(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

import { availableParallelism, cpus } from 'node:os';
import { Redis } from 'ioredis';
import type { ServerProcess, Teardown } from '../harness/process.js';
import { startPrivateRedis } from '../harness/redis.js';
import { measureFamilyMemory } from './family-memory.js';
import { CODE_VERIFIER, createFixtures, type Fixtures, REDIRECT_URI, SCOPE } from './fixtures.js';
import { type BenchClient, FORM_HEADERS } from './grant-loads.js';
import { measuringHostLoad } from './host.js';
import { measureLoad } from './load.js';
import { measureMetricsCost } from './metrics-cost.js';
import { measureOursMetered } from './metrics-phase.js';
import { measureDpopPhase } from './dpop-phase.js';
import { measureOpenidPhase } from './openid-phase.js';
import { mintOurCodes, mintPeerCodes } from './minting.js';
import { type BenchReport, printReport } from './report.js';
import { startBare, startOurs, startPeer } from './servers.js';
import { parseSettings } from './settings.js';
import { measureSigningRate, measureVerificationRate } from './sign.js';
import { measureAuthExchangePhase } from './auth-exchange-phase.js';
import { measurePoolPhase } from './pool-phase.js';
import { boundTarget, measureBoundsPhase, startBound } from './bounds-phase.js';
import { type Contender, type RoundRecords, runRound } from './rounds.js';

/**
 * Our token endpoint against (a) what it could be on one core: a bare Fastify route doing
 * the same form parsing, and the raw ES256 signing rate of the same signing function,
 * 1/(1/a + 1/b); and (b) node-oidc-provider in its own process, in the same run, on
 * client_credentials, code redemption and refresh rotation (Redis for both), in A/B
 * rounds that alternate which server goes first; medians are reported. Also: one against
 * two workers (WORKERS=2), Redis bytes per refresh family, and (d) the cost of metrics:
 * client_credentials with METRICS_PORT unset and set, alternating; and (e) the cost of DPoP:
 * client_credentials plain, then with a fresh DPoP proof in each request; (f) code redemption
 * with and without openid; (g) client_credentials with private_key_jwt, token exchange and a
 * workload's JWT (no client) against client_credentials with client_secret_basic; (h) the
 * server's own size of libuv's thread pool against libuv's 4 threads; (i) the bound, measured:
 * bare Fastify signing on the pool, alone and verifying one client assertion first
 * (bench/bounds-phase.ts); the plain bound also runs in the rounds against the peer.
 * Traffic goes only to 127.0.0.1, bounded in time and count.
 * Usage: npm run bench -- [--quick] [--connections 32] [--duration 10] [--rounds 5]
 */

const cleanups: (() => unknown)[] = [];
const cleanup: Teardown = { teardown: (stop) => void cleanups.push(stop) };

async function stopAll(): Promise<void> {
  for (const stop of cleanups.splice(0).reverse()) await stop();
}

function clientOf(server: ServerProcess, tokenPath: string, fixtures: Fixtures): BenchClient {
  return {
    tokenUrl: `${server.baseUrl}${tokenPath}`,
    authorization: fixtures.basicAuth,
    redirectUri: REDIRECT_URI,
    codeVerifier: CODE_VERIFIER,
  };
}

/** One real request before any load, so a misconfigured server fails loudly. */
async function expectToken(client: BenchClient): Promise<void> {
  const response = await fetch(client.tokenUrl, {
    method: 'POST',
    headers: { ...FORM_HEADERS, authorization: client.authorization },
    body: `grant_type=client_credentials&scope=${SCOPE}`,
  });
  const text = await response.text();
  if (response.status !== 200 || !text.includes('"access_token"'))
    throw new Error(`${client.tokenUrl} answered ${response.status}: ${text}`);
}
async function main(): Promise<void> {
  // Ctrl-C or a kill still runs the 'exit' cleanups (key folder removed); servers are killed by stopAll or with us.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void stopAll().finally(() => process.exit(130)));
  const settings = parseSettings(process.argv.slice(2));
  const machine = `${availableParallelism()} CPUs (${cpus()[0]?.model.trim() ?? 'unknown'}), node ${process.version}`;
  process.stdout.write(
    `bench: ${settings.connections} connections, ${settings.durationSeconds} s per phase after ${settings.warmupSeconds} s warm-up, ${settings.rounds} round(s); ${machine}\n`,
  );
  const fixtures = await createFixtures();
  try {
    process.stdout.write('(a) bare Fastify...\n');
    const bare = await measuringHostLoad(async () => {
      const server = await startBare(cleanup);
      const body = `grant_type=client_credentials&scope=${SCOPE}`;
      const result = await measureLoad({ url: `${server.baseUrl}/token`, headers: FORM_HEADERS, body }, settings);
      await server.stop();
      return result;
    });
    process.stdout.write('(b) ES256 signing...\n');
    const signing = await measuringHostLoad(async () => measureSigningRate(settings.warmupSeconds, settings.signSeconds));
    process.stdout.write('(c) ES256 verification...\n');
    const verification = await measuringHostLoad(async () => measureVerificationRate(settings.warmupSeconds, settings.signSeconds));
    process.stdout.write('(d) metrics off and on (METRICS_PORT), one process, in-memory store...\n');
    const metricsCost = await measuringHostLoad(() =>
      measureMetricsCost(settings.rounds, (metrics) => measureOursMetered(settings, fixtures, metrics)),
    );
    process.stdout.write('(e) DPoP off and on, one process, in-memory store...\n');
    const dpopCost = await measuringHostLoad(() => measureDpopPhase(settings, fixtures));
    process.stdout.write('(f) code redemption with and without openid, one process, private Redis...\n');
    const openidCost = await measuringHostLoad(() => measureOpenidPhase(settings, fixtures));
    process.stdout.write(
      '(g) private_key_jwt, token exchange and a workload JWT against client_secret_basic, one process, in-memory store...\n',
    );
    const authExchangeCost = await measuringHostLoad(() => measureAuthExchangePhase(settings, fixtures));
    process.stdout.write("(h) libuv's thread pool: the server's default size against libuv's 4, one process, in-memory store...\n");
    const poolCost = await measuringHostLoad(() => measurePoolPhase(settings, fixtures));
    process.stdout.write('(i) the bounds, measured: bare Fastify signing on the pool, without and with one verification...\n');
    const boundsCost = await measuringHostLoad(() => measureBoundsPhase(settings, fixtures));

    const redis = await startPrivateRedis(cleanup);
    const admin = new Redis(redis.url);
    cleanups.push(() => admin.quit());
    const ours = await startOurs(cleanup, fixtures, { redisUrl: redis.url });
    const oursTwo = await startOurs(cleanup, fixtures, { redisUrl: redis.url, workers: 2 });
    const peer = await startPeer(cleanup, fixtures, redis.url);
    const contenders: Contender[] = [
      { name: 'ours', client: clientOf(ours, '/oauth2/token', fixtures), pid: ours.child.pid, mint: (n) => mintOurCodes(redis.url, n) },
      { name: 'peer', client: clientOf(peer, '/token', fixtures), pid: peer.child.pid, mint: (n) => mintPeerCodes(peer.baseUrl, n) },
    ];
    const twoWorkers = clientOf(oursTwo, '/oauth2/token', fixtures);
    const boundServer = await startBound(cleanup);
    const bound = { target: boundTarget(boundServer), pid: boundServer.child.pid };
    for (const client of [...contenders.map((c) => c.client), twoWorkers]) await expectToken(client);

    const records: RoundRecords = { samples: {}, cpu: {}, redisPid: redis.pid };
    const rounds = await measuringHostLoad(async () => {
      for (let round = 0; round < settings.rounds; round += 1) {
        await runRound(settings, round, contenders, twoWorkers, bound, records);
        await admin.flushall(); // codes and families of this round: not needed any more
      }
    });

    process.stdout.write('Redis bytes per refresh family...\n');
    const [ourCodes, peerCodes] = [await contenders[0]!.mint(settings.families), await contenders[1]!.mint(settings.families)];
    const memory = {
      ours: await measureFamilyMemory(
        admin,
        { prefix: 'oauth:', codeKeys: /:code:|\{refresh-token-key\}$/, transientKeys: /:grace(:|$)/ },
        contenders[0]!.client,
        ourCodes,
        settings.rotations,
      ),
      peer: await measureFamilyMemory(
        admin,
        { prefix: 'oidc:', codeKeys: /^oidc:AuthorizationCode:/ },
        contenders[1]!.client,
        peerCodes,
        settings.rotations,
      ),
    };
    const report: BenchReport = {
      settings,
      machine,
      bare,
      signing,
      verification,
      metricsCost,
      dpopCost,
      openidCost,
      authExchangeCost,
      poolCost,
      boundsCost,
      samples: records.samples,
      cpu: records.cpu,
      rounds: rounds.host,
      memory,
    };
    const failures = printReport(report);
    if (failures.length > 0) throw new Error(`the bench failed:\n${failures.join('\n')}`);
  } finally {
    await stopAll();
  }
}

main().catch((err: Error) => {
  process.stderr.write(`error: ${err.message}\n`);
  process.exitCode = 1;
});

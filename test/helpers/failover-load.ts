import type { Test } from 'tap';
import { pkcePair } from './browser-flow.js';
import { countAccepted, issueCodes, postToken, readyzStatus, REDIRECT, refreshAnswer, startServers } from './failover-servers.js';
import type { ServerProcess } from '../../harness/process.js';
import type { FailoverFigures, FailoverScenario } from './failover-figures.js';
import type { RedisProcess } from '../../harness/redis.js';
import { nodeCommand } from '../../harness/redis-nodes.js';

/**
 * Failover under load: two server processes on one Redis topology, a bounded load of
 * code redemptions and refresh-token rotations, the primary killed in the middle of it
 * while its replicas lag, then every consumed code and every rotated refresh token
 * presented again.
 */

/**
 * The load: how long, when the primary dies, how many workers of each kind and their
 * pace. The load lasts LOAD_MS, and at least LOAD_AFTER_PROMOTION_MS after the topology
 * announced the promoted replica (a busy host can slow an election down), but never more
 * than MAX_LOAD_MS.
 */
const LOAD_MS = 9000;
const LOAD_AFTER_PROMOTION_MS = 12_000;
/** With replica acknowledgement, the load also lasts this long after the promoted replica can acknowledge again. */
const LOAD_AFTER_ACKNOWLEDGING_MS = 5000;
export const MAX_LOAD_MS = 25_000;
export const KILL_AT_MS = 2500;
/**
 * How long the replicas lag when the primary dies. On loopback replication is too fast to
 * lose anything, so just before the kill the replicas are frozen (SIGSTOP) and the
 * primary drops their links (CLIENT KILL TYPE replica): the writes of the last moment
 * reach the primary only, as when a primary dies before its replicas received its last
 * writes. The replicas are thawed right after the kill; shorter than the time after
 * which a replica counts as down, so one of them is still promoted.
 */
const REPLICA_LAG_MS = 600;
const CODE_WORKERS = 3;
const REFRESH_WORKERS = 3;
const CODE_PACE_MS = 100;
const REFRESH_PACE_MS = 50;
const MAX_REQUESTS = 2500;
const CODES = 280;
const FAMILIES = 40;

interface RequestRecord {
  readonly kind: 'code' | 'refresh';
  /** Milliseconds since the load started. */
  readonly start: number;
  readonly end: number;
  readonly status: number | 'timeout' | 'network';
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function runFailoverUnderLoad(t: Test, scenario: FailoverScenario): Promise<FailoverFigures> {
  const servers = await startServers(t, scenario.redisEnv, scenario.minReplicasAck);
  const { verifier, challenge } = pkcePair();
  // Two signed-in browsers per server issue the codes.
  const issuers = [...servers, ...servers];
  const issued = (await Promise.all(issuers.map((server) => issueCodes(server, (CODES + FAMILIES) / issuers.length, challenge)))).flat();
  const redeem = (server: ServerProcess, code: string) =>
    postToken(server, '/oauth2/token', { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier });
  const familyTokens: string[] = [];
  for (const code of issued.splice(0, FAMILIES)) {
    const res = await redeem(servers[familyTokens.length % 2] as ServerProcess, code);
    if (res.status !== 200) throw new Error(`seeding a refresh family answered ${res.status}`);
    familyTokens.push(res.body.refresh_token as string);
  }
  const codes = issued;

  const records: RequestRecord[] = [];
  const redeemed: string[] = [];
  const rotated: string[] = [];
  /** When each rotated token's rotation was answered (milliseconds since the load started). */
  const rotatedAt = new Map<string, number>();
  const readyz: { at: number; status: number }[] = [];
  const began = performance.now();
  const now = () => performance.now() - began;
  let sent = 0;
  let loadEnd = LOAD_MS;
  const running = () => now() < loadEnd && sent < MAX_REQUESTS;
  const timed = async (kind: RequestRecord['kind'], request: () => Promise<{ status: number; body: Record<string, string> }>) => {
    sent += 1;
    const start = now();
    try {
      const res = await request();
      records.push({ kind, start, end: now(), status: res.status });
      return res;
    } catch (err) {
      records.push({ kind, start, end: now(), status: (err as Error).name === 'TimeoutError' ? 'timeout' : 'network' });
      return undefined;
    }
  };
  const serverFor = (i: number) => servers[i % servers.length] as ServerProcess;

  const codeWorker = async (worker: number) => {
    for (let i = worker; running(); i += 1) {
      const code = codes.shift();
      if (!code) return;
      const res = await timed('code', () => redeem(serverFor(i), code));
      if (res?.status === 200) redeemed.push(code);
      await sleep(CODE_PACE_MS);
    }
  };
  const refreshWorker = async (worker: number) => {
    let current = familyTokens.shift();
    for (let i = worker; running() && current; i += 1) {
      const presented = current;
      const res = await timed('refresh', () =>
        postToken(serverFor(i), '/oauth2/token', { grant_type: 'refresh_token', refresh_token: presented }),
      );
      if (res?.status === 200) {
        rotated.push(presented);
        rotatedAt.set(presented, now());
        current = res.body.refresh_token;
      } else if (res?.status === 400) {
        // The family died (a rotation the client never heard of, then a retry: reuse); take another.
        current = familyTokens.shift();
      }
      await sleep(REFRESH_PACE_MS);
    }
  };
  const pollReadiness = async () => {
    while (running()) {
      const at = now();
      readyz.push({ at, status: await readyzStatus(serverFor(0)) });
      await sleep(100);
    }
  };
  let killedAt = Number.NaN;
  let promotedAt: number | undefined;
  let acknowledgingAt: number | undefined;
  /** Until one of the dead primary's replicas is a primary with `minReplicasAck` replicas online. */
  const watchAcknowledging = async (candidates: readonly RedisProcess[]) => {
    while (running() && acknowledgingAt === undefined) {
      for (const node of candidates) {
        const info = String(await nodeCommand(node.port, 'INFO', 'replication').catch(() => ''));
        const online = info.split('\n').filter((line) => /^slave\d+:.*state=online/.test(line)).length;
        if (/^role:master/m.test(info) && online >= scenario.minReplicasAck) acknowledgingAt = now();
      }
      if (acknowledgingAt === undefined) await sleep(100);
      else loadEnd = Math.min(MAX_LOAD_MS, Math.max(loadEnd, acknowledgingAt + LOAD_AFTER_ACKNOWLEDGING_MS));
    }
  };
  const watchPromotion = async (dead: RedisProcess) => {
    while (running() && promotedAt === undefined) {
      if (await scenario.promoted(dead).catch(() => false)) {
        promotedAt = now();
        loadEnd = Math.min(MAX_LOAD_MS, Math.max(loadEnd, promotedAt + LOAD_AFTER_PROMOTION_MS));
      } else await sleep(100);
    }
  };
  /** Presents a refresh token; `answers` records the answer; true when it was accepted. */
  const refreshWith = async (answers: Map<string, string>, token: string, i: number) => {
    const answer = await refreshAnswer(serverFor(i), token);
    answers.set(token, answer);
    return answer === '200';
  };
  /** Until every server's /readyz answers 200: the store is reachable and writable again. */
  const untilServersReady = async () => {
    while (running() && (await Promise.all(servers.map(readyzStatus))).some((status) => status !== 200)) await sleep(50);
  };
  /**
   * The answers when each family's tokens rotated before the kill are presented again: after
   * the promotion, once the servers are ready, whether or not the promoted replica can
   * acknowledge yet (a refusal does not wait for it).
   */
  const afterPromotion = new Map<string, string>();
  let acceptedAfterPromotion = 0;
  const presentRotatedBeforeKill = async () => {
    await untilServersReady();
    const before = rotated.filter((token) => (rotatedAt.get(token) ?? Number.POSITIVE_INFINITY) < killedAt);
    acceptedAfterPromotion = await countAccepted(before, (token, i) => refreshWith(afterPromotion, token, i));
  };
  const killer = async () => {
    await sleep(KILL_AT_MS - REPLICA_LAG_MS);
    const { primary, replicas } = await scenario.victim();
    for (const replica of replicas) replica.freeze();
    await nodeCommand(primary.port, 'CLIENT', 'KILL', 'TYPE', 'replica');
    await sleep(REPLICA_LAG_MS);
    killedAt = now();
    await primary.kill();
    for (const replica of replicas) replica.thaw();
    await watchPromotion(primary);
    await Promise.all([presentRotatedBeforeKill(), scenario.minReplicasAck > 0 && watchAcknowledging(replicas)]);
  };
  await Promise.all([
    killer(),
    pollReadiness(),
    ...Array.from({ length: CODE_WORKERS }, (_, i) => codeWorker(i)),
    ...Array.from({ length: REFRESH_WORKERS }, (_, i) => refreshWorker(i)),
  ]);
  await scenario.settled();

  // After the failover: nothing consumed or rotated may work again.
  const codesRedeemedTwice = await countAccepted(redeemed, async (code, i) => (await redeem(serverFor(i), code)).status === 200);
  const isActive = new Map<string, boolean>();
  await countAccepted(rotated, async (token, i) => {
    isActive.set(token, Boolean((await postToken(serverFor(i), '/oauth2/introspect', { token })).body.active));
    return false;
  });
  const active = rotated.filter((token) => isActive.get(token));
  const afterSettling = new Map<string, string>();
  const refreshAgain = (token: string, i: number) => refreshWith(afterSettling, token, i);
  // The active ones first (one per family at most): presenting an older token of the same family (reuse) would revoke it.
  const rotatedTokensAccepted =
    acceptedAfterPromotion +
    (await countAccepted(active, refreshAgain)) +
    (await countAccepted(
      rotated.filter((token) => !isActive.get(token)),
      refreshAgain,
    ));
  const rotatedTokensActive = active.length;
  const rotatedBeforeKillAnswers: Record<string, number> = {};
  for (const answer of afterPromotion.values()) rotatedBeforeKillAnswers[answer] = (rotatedBeforeKillAnswers[answer] ?? 0) + 1;

  const failed = records.filter((record) => record.status !== 200 && record.status !== 400);
  const lastFailureEnd = Math.max(killedAt, ...failed.map((record) => record.end));
  const unready = readyz.filter((probe) => probe.at >= killedAt && probe.status !== 200);
  const lastUnready = unready.at(-1)?.at;
  const byStatus: Record<string, number> = {};
  for (const record of records) byStatus[record.status] = (byStatus[record.status] ?? 0) + 1;
  const seconds = (ms: number) => Math.round(ms) / 1000;
  return {
    minReplicasAck: scenario.minReplicasAck,
    requests: records.length,
    loadS: seconds(Math.max(...records.map((record) => record.end))),
    codeRedemptions: redeemed.length,
    rotations: rotated.length,
    byStatus,
    longestRequestMs: Math.round(Math.max(...records.map((record) => record.end - record.start))),
    requestsDuringFailover: records.filter((record) => record.start >= killedAt && record.start <= lastFailureEnd).length,
    firstFailureAfterS: failed.length ? seconds(Math.min(...failed.map((record) => record.start)) - killedAt) : undefined,
    recoveredAfterS: seconds(lastFailureEnd - killedAt),
    promotedAfterS: promotedAt === undefined ? undefined : seconds(promotedAt - killedAt),
    acknowledgingAfterS: acknowledgingAt === undefined ? undefined : seconds(acknowledgingAt - killedAt),
    readyzUnavailableS: seconds(unready.length * 100),
    readyzBackAfterS: lastUnready === undefined ? undefined : seconds(lastUnready + 100 - killedAt),
    codesRedeemedTwice,
    rotatedTokensActive,
    rotatedTokensAccepted,
    rotatedBeforeKillAnswers,
    storeErrors: storeErrors(servers),
  };
}

/** The reasons of the servers' `store unavailable` log lines, counted (see FailoverFigures.storeErrors). */
function storeErrors(servers: readonly ServerProcess[]): Record<string, number> {
  const counted: Record<string, number> = {};
  for (const line of servers.flatMap((server) => server.output().split('\n'))) {
    if (!line.includes('"msg":"store unavailable')) continue;
    const reason = (JSON.parse(line) as { err?: { message?: string } }).err?.message ?? 'no message';
    const normalized = reason.replace(/\d+/g, 'N');
    counted[normalized] = (counted[normalized] ?? 0) + 1;
  }
  return counted;
}

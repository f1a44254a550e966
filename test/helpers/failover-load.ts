import type { Test } from 'tap';
import { pkcePair } from './browser-flow.js';
import { issueCodes, postToken, REDIRECT, REQUEST_LIMIT_MS, startServers } from './failover-servers.js';
import type { ServerProcess } from './process.js';
import type { RedisProcess } from './redis.js';
import { nodeCommand } from './redis-nodes.js';

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

export interface FailoverFigures {
  readonly minReplicasAck: number;
  readonly requests: number;
  /** Seconds the load ran. */
  readonly loadS: number;
  readonly codeRedemptions: number;
  readonly rotations: number;
  readonly byStatus: Record<string, number>;
  readonly longestRequestMs: number;
  /** Requests started between the kill and the end of the last failed one. */
  readonly requestsDuringFailover: number;
  /** Seconds from the kill to the first failed request (undefined: none failed). */
  readonly firstFailureAfterS: number | undefined;
  /** Seconds from the kill to the end of the last failed request: when requests succeed again. */
  readonly recoveredAfterS: number;
  /** Seconds from the kill until the topology announced a promoted replica. */
  readonly promotedAfterS: number | undefined;
  /**
   * With REDIS_MIN_REPLICAS_ACK > 0: seconds from the kill until the promoted replica had
   * that many replicas online again (Redis re-attaching them is Redis's own time; until
   * then WAIT cannot succeed and the server rightly fails closed).
   */
  readonly acknowledgingAfterS: number | undefined;
  /** Seconds /readyz of one instance answered 503 after the kill, and when it was 200 again. */
  readonly readyzUnavailableS: number;
  readonly readyzBackAfterS: number | undefined;
  /** Successful redemptions that, presented again after the failover, were redeemed a second time. */
  readonly codesRedeemedTwice: number;
  /** Rotated refresh tokens that introspection called active again after the failover. */
  readonly rotatedTokensActive: number;
  /** Rotated refresh tokens that a refresh accepted again after the failover. */
  readonly rotatedTokensAccepted: number;
  /**
   * The answers (`<status> <error>`, counted) when the tokens each family had rotated before
   * the kill were presented again, after the promotion, as soon as /readyz answered 200 on
   * every server (while the load goes on).
   */
  readonly rotatedBeforeKillAnswers: Record<string, number>;
}

export interface FailoverScenario {
  /** The environment that points the servers at the topology (REDIS_CLUSTER_NODES, REDIS_SENTINELS, ...). */
  readonly redisEnv: Record<string, string>;
  readonly minReplicasAck: number;
  /** The primary to kill, and its replicas. */
  readonly victim: () => Promise<{ primary: RedisProcess; replicas: RedisProcess[] }>;
  /** Whether a replica has taken the dead primary's place, as the topology announces it. */
  readonly promoted: (dead: RedisProcess) => Promise<boolean>;
  /** Resolves once the topology is healthy again. */
  readonly settled: () => Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** How many of `items` `accepted` says yes to, asking for up to 8 at a time. */
async function countAccepted<T>(items: readonly T[], accepted: (item: T, index: number) => Promise<boolean>): Promise<number> {
  let count = 0;
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      for (let i = next++; i < items.length; i = next++) if (await accepted(items[i] as T, i)) count += 1;
    }),
  );
  return count;
}

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
      const res = await fetch(`${serverFor(0).baseUrl}/readyz`, { signal: AbortSignal.timeout(REQUEST_LIMIT_MS) }).catch(() => undefined);
      readyz.push({ at, status: res?.status ?? 0 });
      await res?.body?.cancel();
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
  /** Presents a refresh token; `answers` records the answer (`<status> <error>`); true when it was accepted. */
  const refreshWith = async (answers: Map<string, string>, token: string, i: number) => {
    const res = await postToken(serverFor(i), '/oauth2/token', { grant_type: 'refresh_token', refresh_token: token });
    answers.set(token, `${res.status} ${res.body.error ?? ''}`.trim());
    return res.status === 200;
  };
  /** Until every server's /readyz answers 200: the store is reachable and writable again. */
  const untilServersReady = async () => {
    const ready = async (server: ServerProcess) => {
      const res = await fetch(`${server.baseUrl}/readyz`, { signal: AbortSignal.timeout(REQUEST_LIMIT_MS) }).catch(() => undefined);
      await res?.body?.cancel();
      return res?.status === 200;
    };
    while (running() && !(await Promise.all(servers.map(ready))).every(Boolean)) await sleep(50);
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
  };
}

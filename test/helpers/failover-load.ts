import type { Test } from 'tap';
import { hashClientSecret } from '../../src/clients/secret.js';
import { codeRequest, formAction, formFields, pkcePair } from './browser-flow.js';
import { HttpBrowser, postAsClient } from './http-browser.js';
import { keysDirWithSigningKey } from './keys.js';
import { cheapPasswordHash } from './passwords.js';
import { freePort } from './ports.js';
import { type ServerProcess, startServerProcess } from './process.js';
import type { RedisProcess } from './redis.js';
import { registryFiles } from './registries.js';
import { nodeCommand } from './redis-nodes.js';

/**
 * Failover under load: two server processes on one Redis topology, a bounded load of
 * code redemptions and refresh-token rotations, the primary killed in the middle of it
 * while its replicas lag, then every consumed code and every rotated refresh token
 * presented again.
 */

const SECRET = 'failover-test-secret-0123456789abcdefghijklmn';
const REDIRECT = 'https://app.example.com/callback';
const PASSWORD = 'alice-password-1';
export const COMMAND_TIMEOUT_MS = 1000;

/**
 * The load: how long, when the primary dies, how many workers of each kind and their
 * pace. The load lasts LOAD_MS, and at least LOAD_AFTER_PROMOTION_MS after the topology
 * announced the promoted replica (a busy host can slow an election down), but never more
 * than MAX_LOAD_MS.
 */
const LOAD_MS = 9000;
const LOAD_AFTER_PROMOTION_MS = 6000;
export const MAX_LOAD_MS = 25_000;
const KILL_AT_MS = 2500;
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
/** A request that takes longer than this is cut and counted as `timeout` (it would be a hang). */
const REQUEST_LIMIT_MS = 10_000;

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
  /** Seconds /readyz of one instance answered 503 after the kill, and when it was 200 again. */
  readonly readyzUnavailableS: number;
  readonly readyzBackAfterS: number | undefined;
  /** Successful redemptions that, presented again after the failover, were redeemed a second time. */
  readonly codesRedeemedTwice: number;
  /** Rotated refresh tokens that introspection called active again after the failover. */
  readonly rotatedTokensActive: number;
  /** Rotated refresh tokens that a refresh accepted again after the failover. */
  readonly rotatedTokensAccepted: number;
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

async function startServers(t: Test, scenario: FailoverScenario): Promise<ServerProcess[]> {
  const { clientsFile, usersFile } = await registryFiles(
    t,
    [
      {
        client_id: 'web',
        client_secret_hash: hashClientSecret(SECRET),
        redirect_uris: [REDIRECT],
        grant_types: ['authorization_code', 'refresh_token'],
        scope: 'read',
      },
    ],
    [{ username: 'alice', password_hash: cheapPasswordHash(PASSWORD) }],
  );
  const env = {
    ISSUER: 'https://auth.example.com',
    KEYS_DIR: await keysDirWithSigningKey(t),
    CLIENTS_FILE: clientsFile,
    USERS_FILE: usersFile,
    SESSION_SECRET: 'failover-session-secret-0123456789abcdef',
    // Every second presentation of a rotated token is reuse: no grace answer hides one.
    REFRESH_REUSE_GRACE: '0',
    AUTHORIZATION_CODE_TTL: '600',
    REDIS_COMMAND_TIMEOUT_MS: String(COMMAND_TIMEOUT_MS),
    REDIS_MIN_REPLICAS_ACK: String(scenario.minReplicasAck),
    LOG_LEVEL: 'fatal',
    ...scenario.redisEnv,
  };
  return Promise.all([0, 1].map(async () => startServerProcess(t, { ...env, PORT: String(await freePort()) }, { readyPath: '/readyz' })));
}

/** Codes issued by the real flow: one signed-in browser approves `count` authorization requests. */
async function issueCodes(server: ServerProcess, count: number, challenge: string): Promise<string[]> {
  const query = new URLSearchParams(codeRequest('web', REDIRECT, challenge));
  const browser = new HttpBrowser();
  const login = await (await browser.request(`${server.baseUrl}/oauth2/authorize?${query}`)).text();
  const signedIn = await browser.request(`${server.baseUrl}${formAction(login)}`, {
    ...formFields(login),
    username: 'alice',
    password: PASSWORD,
  });
  if (signedIn.status !== 303) throw new Error(`sign-in answered ${signedIn.status}`);
  const codes: string[] = [];
  while (codes.length < count) {
    const consent = await (await browser.request(`${server.baseUrl}/oauth2/authorize?${query}`)).text();
    const decided = await browser.request(`${server.baseUrl}${formAction(consent)}`, { ...formFields(consent), decision: 'allow' });
    const code = new URL(decided.headers.get('location') ?? 'x:').searchParams.get('code');
    if (decided.status !== 303 || !code) throw new Error(`consent answered ${decided.status}`);
    codes.push(code);
  }
  return codes;
}

const postToken = (server: ServerProcess, path: string, params: Record<string, string>) =>
  postAsClient(`${server.baseUrl}${path}`, { id: 'web', secret: SECRET }, params, REQUEST_LIMIT_MS);

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
  const servers = await startServers(t, scenario);
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
  const watchPromotion = async (dead: RedisProcess) => {
    while (running() && promotedAt === undefined) {
      if (await scenario.promoted(dead).catch(() => false)) {
        promotedAt = now();
        loadEnd = Math.min(MAX_LOAD_MS, Math.max(loadEnd, promotedAt + LOAD_AFTER_PROMOTION_MS));
      } else await sleep(100);
    }
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
  const refreshWith = async (token: string, i: number) =>
    (await postToken(serverFor(i), '/oauth2/token', { grant_type: 'refresh_token', refresh_token: token })).status === 200;
  // The active ones first (one per family at most): presenting an older token of the same family (reuse) would revoke it.
  const rotatedTokensAccepted =
    (await countAccepted(active, refreshWith)) +
    (await countAccepted(
      rotated.filter((token) => !isActive.get(token)),
      refreshWith,
    ));
  const rotatedTokensActive = active.length;

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
    readyzUnavailableS: seconds(unready.length * 100),
    readyzBackAfterS: lastUnready === undefined ? undefined : seconds(lastUnready + 100 - killedAt),
    codesRedeemedTwice,
    rotatedTokensActive,
    rotatedTokensAccepted,
  };
}

/**
 * What holds for every run, whatever REDIS_MIN_REPLICAS_ACK: the topology promoted a
 * replica, the servers followed it without a restart within `boundS` of the promotion,
 * no request outlasted two store timeouts, and every answer was a clear one.
 */
export function assertRecovered(t: Test, figures: FailoverFigures, boundS: number): void {
  t.comment(`failover figures: ${JSON.stringify(figures)}`);
  const statuses = Object.keys(figures.byStatus).sort();
  t.same(
    statuses.filter((status) => !['200', '400', '500'].includes(status)),
    [],
    `only 200, 400 invalid_grant and 500 server_error: no hang, no dropped connection (${statuses.join(', ')})`,
  );
  t.ok(
    figures.longestRequestMs < 2 * COMMAND_TIMEOUT_MS + 1000,
    `the longest request took ${figures.longestRequestMs} ms: a request makes at most two store calls, each bounded by REDIS_COMMAND_TIMEOUT_MS`,
  );
  const promoted = figures.promotedAfterS ?? Number.POSITIVE_INFINITY;
  t.ok(promoted < (MAX_LOAD_MS - KILL_AT_MS) / 1000, `the topology promoted a replica ${promoted} s after the kill`);
  t.ok(
    figures.recoveredAfterS < promoted + boundS,
    `requests succeed again ${figures.recoveredAfterS} s after the kill, ${(figures.recoveredAfterS - promoted).toFixed(1)} s after the promotion (bound ${boundS} s)`,
  );
  t.ok(
    figures.recoveredAfterS + 1 < figures.loadS - KILL_AT_MS / 1000,
    'and kept succeeding for the rest of the load (at least a second): the server recovered without a restart',
  );
  t.ok(
    figures.codeRedemptions > 50 && figures.rotations > 100,
    `${figures.codeRedemptions} codes redeemed, ${figures.rotations} rotations`,
  );
}

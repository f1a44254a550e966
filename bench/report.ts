import { availableParallelism } from 'node:os';
import { defaultThreadPoolSize, signingConfig } from '../src/config/signing.js';
import type { BenchSettings } from './settings.js';
import type { FamilyMemory } from './family-memory.js';
import type { HostLoad, WithHostLoad } from './host.js';
import type { LoadResult } from './load.js';
import { type DpopCost, dpopCpu } from './dpop-cost.js';
import type { OpenidCost } from './openid-phase.js';
import type { AuthExchangeCost } from './auth-exchange-phase.js';
import { type PoolCost, poolLine } from './pool-phase.js';
import { type CpuSplit, cpuSplitLine, perRequest } from './cpu-split.js';
import { ceilingLines } from './ceilings.js';
import { type BoundsCost, boundRoundLines, boundsLine } from './bounds-phase.js';
import { cpuMicrosPerRequest, describeCpu, median, type MeteredLoad, type MetricsCost, roundRatios } from './metrics-cost.js';

/** What `npm run bench` prints: medians over the rounds, ratios, and why a run failed. */

/** Above this share of CPU time taken by others (steal or other processes) the numbers are noisy. */
const NOISY_HOST_PERCENT = 5;

export interface BenchReport {
  readonly settings: BenchSettings;
  readonly machine: string;
  readonly bare: WithHostLoad<LoadResult>;
  readonly signing: WithHostLoad<number>;
  readonly verification: WithHostLoad<number>;
  readonly metricsCost: WithHostLoad<MetricsCost>;
  readonly dpopCost: WithHostLoad<DpopCost>;
  readonly openidCost: WithHostLoad<OpenidCost>;
  readonly authExchangeCost: WithHostLoad<AuthExchangeCost>;
  readonly poolCost: WithHostLoad<PoolCost>;
  readonly boundsCost: WithHostLoad<BoundsCost>;
  /** Results per figure (`ours cc`, `peer refresh`, ...), one per round. */
  readonly samples: Readonly<Record<string, readonly LoadResult[]>>;
  /** Where the CPU went in each sample of `samples` measured against the peer (server, Redis, load generator). */
  readonly cpu: Readonly<Record<string, readonly (CpuSplit | undefined)[]>>;
  readonly rounds: HostLoad | undefined;
  readonly memory: { readonly ours: FamilyMemory; readonly peer: FamilyMemory };
}

export interface Figure {
  readonly rate: number;
  readonly p50: number;
  readonly p99: number;
}

function figureOf(results: readonly LoadResult[] | undefined): Figure | undefined {
  if (!results || results.length === 0) return undefined;
  return {
    rate: median(results.map((r) => r.requestsPerSecond)),
    p50: median(results.map((r) => r.p50Ms)),
    p99: median(results.map((r) => r.p99Ms)),
  };
}

const whole = (n: number) => Math.round(n).toLocaleString('en-US');
const latency = (f: Figure) => `p50 ${f.p50} / p99 ${f.p99} ms`;
const hostNote = (host: HostLoad | undefined) =>
  host === undefined ? '' : `CPU steal ${host.stealPercent.toFixed(0)}%, other processes ${host.otherPercent.toFixed(0)}%`;

function failuresOf(name: string, results: readonly LoadResult[]): string[] {
  const failures: string[] = [];
  for (const result of results) {
    if (result.errors > 0) failures.push(`${name}: ${result.errors} connection errors`);
    if (result.non2xx > 0) {
      const codes = Object.entries(result.statusCodes).map(([code, count]) => `${code}×${count}`);
      failures.push(`${name}: ${result.non2xx} non-2xx responses [${codes.join(' ')}]`);
    }
  }
  return failures;
}

/** Where our server signs with WORKERS=`workers` on this machine (ACCESS_TOKEN_SIGNING=auto, the bench's setting). */
function signingOf(workers: number): string {
  return signingConfig({ ACCESS_TOKEN_SIGNING: 'auto' }, workers, availableParallelism()).accessTokenSigning;
}

/** (f)'s server CPU per redemption (every thread), each ID token's beside the plain one's. */
function openidCpu(cost: OpenidCost): string {
  const [plain, rs256, es256] = [cpuMicrosPerRequest(cost.plain), cpuMicrosPerRequest(cost.rs256), cpuMicrosPerRequest(cost.es256)];
  if (plain === undefined || rs256 === undefined || es256 === undefined) return 'server CPU per request: unknown (no /proc)';
  const us = (n: number) => `${Math.round(n)} µs`;
  return `server CPU per request: without ${us(plain)}, RS256 ${us(rs256)} (+${us(rs256 - plain)}), ES256 ${us(es256)} (+${us(es256 - plain)})`;
}

/** (f): code redemption without openid, with an RS256 ID token (the default), with an ES256 one. */
function openidLine(cost: WithHostLoad<OpenidCost>): string {
  const [plain, rs256, es256] = [figureOf(cost.value.plain), figureOf(cost.value.rs256), figureOf(cost.value.es256)];
  if (!plain || !rs256 || !es256) return '(f) openid: no result';
  return (
    `(f) code redemption with openid, one process, Redis, medians of ${cost.value.plain.length} alternated rounds [${hostNote(cost.host)}]: ` +
    `without ${whole(plain.rate)} req/s (p99 ${plain.p99} ms), with an RS256 ID token ${whole(rs256.rate)} req/s (p99 ${rs256.p99} ms, ` +
    `${(rs256.rate / plain.rate).toFixed(2)}×), with an ES256 one ${whole(es256.rate)} req/s (p99 ${es256.p99} ms, ${(es256.rate / plain.rate).toFixed(2)}×); ` +
    openidCpu(cost.value)
  );
}

/** (g): client_credentials with private_key_jwt, token exchange and a workload's JWT, each against client_secret_basic; and the ratios alone. */
/** (g)'s server CPU per request, each variant's beside basic's: what the variant adds, whatever the rate. */
function authExchangeCpu(cost: AuthExchangeCost): string {
  const basic = cpuMicrosPerRequest(cost.basic);
  if (basic === undefined) return '(g) server CPU per request: unknown (no /proc)';
  const of = (name: string, results: readonly MeteredLoad[]) => {
    const micros = cpuMicrosPerRequest(results);
    return micros === undefined ? `${name} unknown` : `${name} ${Math.round(micros)} µs (+${Math.round(micros - basic)})`;
  };
  return `(g) server CPU per request (every thread): basic ${Math.round(basic)} µs, ${[
    of('pkjwt', cost.pkjwt),
    of('exchange', cost.exchange),
    of('workload', cost.workload),
  ].join(', ')}`;
}

function authExchangeLines(cost: WithHostLoad<AuthExchangeCost>): { line: string; ratios: string; cpu: string } {
  const { basic: b, pkjwt: p, exchange: e, workload: w } = cost.value;
  const [basic, pkjwt, exchange, workload] = [figureOf(b), figureOf(p), figureOf(e), figureOf(w)];
  if (!basic || !pkjwt || !exchange || !workload)
    return {
      line: '(g) client authentication, token exchange and workloads: no result',
      ratios: '',
      cpu: '(g) server CPU per request: no result',
    };
  const ratio = (figure: { rate: number }) => (figure.rate / basic.rate).toFixed(2);
  return {
    line:
      `(g) one process, in-memory store, medians of ${b.length} alternated rounds [${hostNote(cost.host)}]: ` +
      `client_credentials with client_secret_basic ${whole(basic.rate)} req/s (p99 ${basic.p99} ms), with private_key_jwt ` +
      `${whole(pkjwt.rate)} req/s (p99 ${pkjwt.p99} ms, pkjwt/basic = ${ratio(pkjwt)}), token exchange ${whole(exchange.rate)} req/s ` +
      `(p99 ${exchange.p99} ms, exchange/cc = ${ratio(exchange)}), a workload's JWT ${whole(workload.rate)} req/s ` +
      `(p99 ${workload.p99} ms, workload/cc = ${ratio(workload)})`,
    ratios: ` pkjwt/basic=${ratio(pkjwt)} exchange/cc=${ratio(exchange)} workload/cc=${ratio(workload)}`,
    cpu: authExchangeCpu(cost.value),
  };
}

/** Prints the report; returns what failed (connection errors, non-2xx answers). */
export function printReport(report: BenchReport): string[] {
  const { settings, bare, signing, samples, memory } = report;
  const bound = 1 / (1 / bare.value.requestsPerSecond + 1 / signing.value);
  const authExchange = authExchangeLines(report.authExchangeCost);
  const dpopPlain = report.dpopCost.value.plain;
  const dpop = { plain: figureOf(dpopPlain) as Figure, dpop: figureOf(report.dpopCost.value.dpop) as Figure };
  const rows: [string, string, string][] = [
    [`client_credentials, ${settings.connections} connections`, 'ours cc', 'peer cc'],
    ['client_credentials, 256 connections', 'ours cc256', 'peer cc256'],
    [`code redemption (Redis), ${settings.connections} connections`, 'ours code', 'peer code'],
    [`refresh rotation (Redis), ${settings.connections} connections`, 'ours refresh', 'peer refresh'],
  ];
  const lines = [
    '',
    `machine: ${report.machine}; during the rounds: ${hostNote(report.rounds) || 'host load unknown'}`,
    `(a) bare Fastify, same form parsing: ${whole(bare.value.requestsPerSecond)} req/s [${hostNote(bare.host)}]`,
    `(b) ES256 signing, one core, tight loop: ${whole(signing.value)} signs/s [${hostNote(signing.host)}]`,
    `bound = 1/(1/a + 1/b) = ${whole(bound)} req/s`,
    `(d) metrics off and METRICS_PORT set, medians of ${report.metricsCost.value.results.length / 2} alternated rounds [${hostNote(report.metricsCost.host)}]: ` +
      `off ${whole(report.metricsCost.value.off)} req/s, on ${whole(report.metricsCost.value.on)} req/s, ` +
      `on/off = ${(report.metricsCost.value.on / report.metricsCost.value.off).toFixed(3)}; ${describeCpu(report.metricsCost.value.cpuPerRequest)}`,
    `(e) DPoP, one process, medians of ${dpopPlain.length} alternated rounds [${hostNote(report.dpopCost.host)}]: without ${whole(dpop.plain.rate)} req/s ` +
      `(p99 ${dpop.plain.p99} ms), with a fresh proof each ${whole(dpop.dpop.rate)} req/s ` +
      `(p99 ${dpop.dpop.p99} ms), with/without = ${(dpop.dpop.rate / dpop.plain.rate).toFixed(2)}; ${dpopCpu(report.dpopCost.value)}`,
    openidLine(report.openidCost),
    authExchange.line,
    authExchange.cpu,
    poolLine(report.poolCost, defaultThreadPoolSize(1, availableParallelism()), hostNote(report.poolCost.host)),
    boundsLine(report.boundsCost, hostNote(report.boundsCost.host)),
    ...ceilingLines(signing.value, report.verification.value, report.authExchangeCost.value.basic, report.openidCost.value.plain),
    '',
    `medians of ${settings.rounds} round(s), A/B alternated; peer = node-oidc-provider (JWT ES256, Redis adapter)`,
    '| figure | ours | peer | ours/peer |',
    '|---|---|---|---|',
  ];
  const summary: string[] = [];
  for (const [label, ourKey, peerKey] of rows) {
    const ours = figureOf(samples[ourKey]);
    const peer = figureOf(samples[peerKey]);
    if (!ours || !peer) continue;
    const ratio = ours.rate / peer.rate;
    lines.push(
      `| ${label} | ${whole(ours.rate)} req/s, ${latency(ours)} | ${whole(peer.rate)} req/s, ${latency(peer)} | ${ratio.toFixed(2)}× |`,
    );
    summary.push(`${ourKey.split(' ')[1]}=${ratio.toFixed(2)}`);
  }
  // The ratio of each round (ours and the peer measured back to back): how far one run's rounds spread.
  const perRound = rows.flatMap(([, ourKey, peerKey]) => {
    const ratios = roundRatios(samples[ourKey] ?? [], samples[peerKey] ?? []);
    return ratios.length > 1 ? [`${ourKey.split(' ')[1]} ${ratios.join(' ')}`] : [];
  });
  if (perRound.length > 0) lines.push(`ours/peer in each round: ${perRound.join('; ')}`);
  lines.push(...boundRoundLines(samples, report.cpu, settings.connections));
  lines.push('CPU per request during the rounds (µs; server: every thread; load: this process, the load generator):');
  for (const [label, ourKey, peerKey] of rows)
    if (samples[ourKey])
      lines.push(`  ${cpuSplitLine(label, perRequest(report.cpu[ourKey] ?? []), perRequest(report.cpu[peerKey] ?? []))}`);
  const oursCc = figureOf(samples['ours cc']);
  const two = figureOf(samples['ours2 cc']);
  if (oursCc) lines.push('', `ours/bound (client_credentials, one process) = ${(oursCc.rate / bound).toFixed(2)}`);
  lines.push(`ours sign with ACCESS_TOKEN_SIGNING=auto: ${signingOf(1)} with WORKERS=1, ${signingOf(2)} with WORKERS=2`);
  if (oursCc && two) {
    const cores = availableParallelism();
    lines.push(
      `WORKERS=1 → 2 (client_credentials, ${settings.connections} connections, load generator on the same ${cores} cores): ` +
        `${whole(oursCc.rate)} → ${whole(two.rate)} req/s (${(two.rate / oursCc.rate).toFixed(2)}×), ` +
        `${whole(oursCc.rate)} → ${whole(two.rate / Math.min(2, cores))} req/s per core; p99 ${oursCc.p99} → ${two.p99} ms`,
    );
  }
  const bytes = (m: FamilyMemory) =>
    `${whole(m.afterRedemption)} B after the redemption, ${whole(m.afterFirstRotation)} B after 1 rotation, ` +
    `${whole(m.afterRotations)} B after ${m.rotations} rotations ` +
    `(${whole((m.afterRotations - m.afterFirstRotation) / (m.rotations - 1))} B per further rotation)` +
    (m.transientAfterRotations > 0 ? `, plus ${whole(m.transientAfterRotations)} B in grace records that expire within seconds` : '');
  lines.push(
    `Redis bytes per refresh family (MEMORY USAGE, ${memory.ours.families} families, codes left out):`,
    `  ours: ${bytes(memory.ours)}`,
    `  peer: ${bytes(memory.peer)}`,
  );
  if (report.rounds && report.rounds.stealPercent + report.rounds.otherPercent > NOISY_HOST_PERCENT) {
    lines.push(
      `note: others took ${(report.rounds.stealPercent + report.rounds.otherPercent).toFixed(0)}% of the host's CPU time; expect noisy numbers`,
    );
  }
  // The peer's errors (timeouts at 256 connections) are its result, reported; ours fail the run.
  const isPeer = ([name]: [string, unknown]) => name.startsWith('peer');
  const peerTrouble = Object.entries(samples)
    .filter(isPeer)
    .flatMap(([name, results]) => failuresOf(name, results));
  if (peerTrouble.length > 0) lines.push(`peer errors (not ours): ${peerTrouble.join('; ')}`);
  const metrics = report.metricsCost.value;
  lines.push(
    '',
    `bench: ${summary.join(' ')} ours/bound=${oursCc ? (oursCc.rate / bound).toFixed(2) : '?'} metrics=${(metrics.on / metrics.off).toFixed(3)} ` +
      `dpop=${(dpop.dpop.rate / dpop.plain.rate).toFixed(2)}${authExchange.ratios} pool=${(report.poolCost.value.on / report.poolCost.value.off).toFixed(2)}`,
  );
  process.stdout.write(`${lines.join('\n')}\n`);
  const ourResults = Object.entries(samples).filter((entry) => !isPeer(entry));
  return [
    ...failuresOf('bare server', [bare.value]),
    ...failuresOf('metrics phase', report.metricsCost.value.results),
    ...failuresOf('pool phase', report.poolCost.value.results),
    ...Object.entries(report.boundsCost.value).flatMap(([name, results]) => failuresOf(`(i) ${name}`, results)),
    ...failuresOf('DPoP phase without proofs', report.dpopCost.value.plain),
    ...failuresOf('DPoP phase with proofs', report.dpopCost.value.dpop),
    ...failuresOf('openid phase', [...report.openidCost.value.plain, ...report.openidCost.value.rs256, ...report.openidCost.value.es256]),
    ...Object.entries(report.authExchangeCost.value).flatMap(([name, results]) => failuresOf(`(g) ${name}`, results)),
    ...ourResults.flatMap(([name, results]) => failuresOf(name, results)),
  ];
}

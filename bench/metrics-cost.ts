import { cpuMeter, meteredSeconds } from './cpu-split.js';
import { type LoadResult, type LoadSettings, type LoadTarget, measureLoad } from './load.js';

/** A load result with the CPU time the server process spent during the load (Linux: /proc). */
export interface MeteredLoad extends LoadResult {
  readonly serverCpuSeconds: number | undefined;
  /** This process's CPU during the load: the load generator's, on the same cores. */
  readonly loadCpuSeconds?: number;
}

/** Token endpoint throughput with metrics off and on (METRICS_PORT set), in req/s. */
export interface MetricsCost {
  readonly off: number;
  readonly on: number;
  /** Server CPU microseconds per request, off and on; undefined without /proc. */
  readonly cpuPerRequest: { readonly off: number; readonly on: number } | undefined;
  readonly results: readonly LoadResult[];
}

/** The middle value (the mean of the two middle ones for an even count). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/**
 * Off and on in `rounds` rounds (two at least), the order alternating each round: that
 * evens out drift on a noisy host; each side's rate is the median of its runs, its CPU per
 * request that of all its runs together.
 */
export async function measureMetricsCost(rounds: number, measure: (metrics: boolean) => Promise<MeteredLoad>): Promise<MetricsCost> {
  const off: MeteredLoad[] = [];
  const on: MeteredLoad[] = [];
  for (let round = 0; round < Math.max(2, rounds); round++) {
    for (const metrics of round % 2 === 0 ? [false, true] : [true, false]) (metrics ? on : off).push(await measure(metrics));
  }
  const rate = (results: LoadResult[]) => median(results.map((r) => r.requestsPerSecond));
  const [cpuOff, cpuOn] = [cpuMicrosPerRequest(off), cpuMicrosPerRequest(on)];
  const cpuPerRequest = cpuOff === undefined || cpuOn === undefined ? undefined : { off: cpuOff, on: cpuOn };
  return { off: rate(off), on: rate(on), cpuPerRequest, results: [...off, ...on] };
}

/** `a`'s rate over `b`'s in each round both measured (a round of `b` at 0 req/s left out), to two decimals. */
export function roundRatios(a: readonly LoadResult[], b: readonly LoadResult[]): string[] {
  return a.flatMap((result, i) => {
    const theirs = b[i];
    return theirs && theirs.requestsPerSecond > 0 ? [(result.requestsPerSecond / theirs.requestsPerSecond).toFixed(2)] : [];
  });
}

/** The server's CPU (every thread) per request over all of `results` together, in µs; undefined without /proc. */
export function cpuMicrosPerRequest(results: readonly MeteredLoad[], part: 'server' | 'load' = 'server'): number | undefined {
  const seconds = results.map((r) => (part === 'server' ? r.serverCpuSeconds : r.loadCpuSeconds));
  if (seconds.length === 0 || seconds.some((s) => s === undefined)) return undefined;
  const requests = results.reduce((sum, r) => sum + r.completed, 0);
  return (seconds.reduce((sum: number, s) => sum + (s as number), 0) / requests) * 1e6;
}

/** `measureLoad` with the CPU time `pid` and this process (the load generator) spent on the measured run (after the warm-up). */
export async function measureMeteredLoad(pid: number | undefined, target: LoadTarget, settings: LoadSettings): Promise<MeteredLoad> {
  const meter = cpuMeter(pid);
  const result = await measureLoad(target, settings, () => meter.start());
  return { ...result, ...meteredSeconds(meter.stop(result.completed)) };
}

/** With metrics on, the scrape must have counted every token the load received. */
export async function expectCounted(metricsPort: string, completed: number): Promise<void> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  const counted = Number(/^oauth2_tokens_issued_total\{[^}]*\} (\d+)$/m.exec(text)?.[1] ?? 0);
  if (counted < completed) throw new Error(`metrics counted ${counted} tokens, the load received ${completed}`);
}

/** `labels`: what the two sides are called (metrics off and on by default). */
export function describeCpu(cpu: MetricsCost['cpuPerRequest'], labels: readonly [off: string, on: string] = ['off', 'on']): string {
  if (cpu === undefined) return 'server CPU per request: unknown (no /proc)';
  const us = (n: number) => `${Math.round(n)} µs`;
  const [off, on] = labels;
  return `server CPU per request: ${off} ${us(cpu.off)}  ${on} ${us(cpu.on)}  ${on}/${off} = ${(cpu.on / cpu.off).toFixed(3)}`;
}

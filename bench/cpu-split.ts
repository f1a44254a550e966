import { readFileSync } from 'node:fs';

/**
 * User + system CPU seconds of process `pid` so far, every thread, from /proc/<pid>/stat
 * (clock ticks of 1/100 s); undefined where there is no /proc. CPU time per request barely
 * moves when other tenants take the cores, unlike throughput.
 */
export function cpuSecondsOf(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

/** This process's CPU seconds so far (user and system, every thread). */
function ownCpuSeconds(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
}

/**
 * Where the host's CPU went during a measured phase against the peer: the server under load
 * (every thread, from /proc), Redis, and this process, which is the load generator. On a
 * host whose cores the three share, a rate ratio is a ratio of all three together: a server
 * that costs half the peer's CPU per request serves less than twice its rate, as the load
 * generator's and Redis's share is the same for both. The server's own CPU per request is
 * the figure the load generator does not dilute.
 */
export interface CpuSplit {
  readonly server: number;
  readonly redis: number;
  readonly loadGenerator: number;
  /** The requests answered in the window. */
  readonly requests: number;
}

export interface CpuMeter {
  /** Starts the window (after any warm-up). */
  start(): void;
  /** Ends it; undefined without /proc. */
  stop(requests: number): CpuSplit | undefined;
}

/** `redisPid` absent: a phase without Redis (its part is 0). */
export function cpuMeter(serverPid: number | undefined, redisPid?: number): CpuMeter {
  const redisSeconds = () => (redisPid === undefined ? 0 : cpuSecondsOf(redisPid));
  let before: { server: number | undefined; redis: number | undefined; self: number } | undefined;
  return {
    start() {
      before = { server: cpuSecondsOf(serverPid), redis: redisSeconds(), self: ownCpuSeconds() };
    },
    stop(requests) {
      const [server, redis] = [cpuSecondsOf(serverPid), redisSeconds()];
      if (!before || before.server === undefined || before.redis === undefined || server === undefined || redis === undefined)
        return undefined;
      return { server: server - before.server, redis: redis - before.redis, loadGenerator: ownCpuSeconds() - before.self, requests };
    },
  };
}

/** A window's server and load-generator seconds as MeteredLoad carries them (undefined without /proc). */
export function meteredSeconds(split: CpuSplit | undefined): { serverCpuSeconds: number | undefined; loadCpuSeconds?: number } {
  return split ? { serverCpuSeconds: split.server, loadCpuSeconds: split.loadGenerator } : { serverCpuSeconds: undefined };
}

/** Microseconds per request of each part, over all of `splits` together. */
export interface CpuPerRequest {
  readonly server: number;
  readonly redis: number;
  readonly loadGenerator: number;
}

export function perRequest(splits: readonly (CpuSplit | undefined)[]): CpuPerRequest | undefined {
  if (splits.length === 0 || splits.some((s) => s === undefined)) return undefined;
  const all = splits as readonly CpuSplit[];
  const requests = all.reduce((sum, s) => sum + s.requests, 0);
  if (requests === 0) return undefined;
  const micros = (part: 'server' | 'redis' | 'loadGenerator') => (all.reduce((sum, s) => sum + s[part], 0) / requests) * 1e6;
  return { server: micros('server'), redis: micros('redis'), loadGenerator: micros('loadGenerator') };
}

const total = (cpu: CpuPerRequest) => cpu.server + cpu.redis + cpu.loadGenerator;

/**
 * One figure's line: each side's CPU per request by part; the peer's server CPU over ours
 * (what the rate ratio would be on cores of the servers' own); the peer's whole-host CPU
 * over ours (what the rate ratio is on shared cores, CPU-bound); and the ceiling: the
 * whole-host ratio were our server to cost nothing at all, with the same load generator and Redis.
 */
export function cpuSplitLine(label: string, ours: CpuPerRequest | undefined, peer: CpuPerRequest | undefined): string {
  if (!ours || !peer) return `${label}: CPU per request unknown (no /proc)`;
  const us = (n: number) => `${Math.round(n)}`;
  const side = (cpu: CpuPerRequest) => `server ${us(cpu.server)} + Redis ${us(cpu.redis)} + load ${us(cpu.loadGenerator)}`;
  return (
    `${label}: ours ${side(ours)} = ${us(total(ours))} µs, peer ${side(peer)} = ${us(total(peer))} µs; ` +
    `server peer/ours ${(peer.server / ours.server).toFixed(2)}×, whole host ${(total(peer) / total(ours)).toFixed(2)}×, ` +
    `ceiling with our server free ${(total(peer) / (ours.redis + ours.loadGenerator)).toFixed(2)}×`
  );
}

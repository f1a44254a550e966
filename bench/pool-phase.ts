import type { Fixtures } from './fixtures.js';
import type { WithHostLoad } from './host.js';
import type { LoadSettings } from './load.js';
import { describeCpu, measureMetricsCost, type MetricsCost } from './metrics-cost.js';
import { measureOursOnce } from './metrics-phase.js';

/**
 * (h) libuv's thread pool: our client_credentials endpoint (one process, in-memory store)
 * with the pool the server sizes itself (UV_THREADPOOL_SIZE unset: src/config/signing.ts)
 * against libuv's own 4 threads, alternated, each run on a fresh server. What the default
 * buys on this host, measured in every run rather than once.
 */

/** libuv's own default size, the other side of the comparison. */
export const LIBUV_POOL = 4;

/** `on`: the server's default size; `off`: libuv's 4 (the alternation of measureMetricsCost). */
export type PoolCost = MetricsCost;

export function measurePoolPhase(settings: LoadSettings & { readonly rounds: number }, fixtures: Fixtures): Promise<PoolCost> {
  return measureMetricsCost(settings.rounds, (serverDefault) =>
    measureOursOnce(settings, fixtures, serverDefault ? {} : { threadPoolSize: LIBUV_POOL }),
  );
}

/** The report's line; `size`: the default here, `note`: the host's load during the phase. */
export function poolLine(cost: WithHostLoad<PoolCost>, size: number, note: string): string {
  const { on, off, results, cpuPerRequest } = cost.value;
  const whole = (n: number) => Math.round(n).toLocaleString('en-US');
  const labels = [`${LIBUV_POOL} threads`, 'default'] as const;
  return (
    `(h) libuv's thread pool, one process, medians of ${results.length / 2} alternated rounds [${note}]: ` +
    `the server's default here (${size} thread${size === 1 ? '' : 's'}) ${whole(on)} req/s, libuv's ${LIBUV_POOL} threads ${whole(off)} req/s, ` +
    `default/${LIBUV_POOL} = ${(on / off).toFixed(2)}; ${describeCpu(cpuPerRequest, labels)}`
  );
}

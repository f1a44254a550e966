import type { MeteredLoad } from '../../bench/metrics-cost.js';

/** A bench load result for the report's pure functions: `requestsPerSecond` over `completed` requests, no error, CPU as given (undefined: no /proc). */
export function meteredLoad(
  requestsPerSecond: number,
  cpu: { server?: number | undefined; load?: number | undefined; completed?: number } = {},
): MeteredLoad {
  return {
    requestsPerSecond,
    completed: cpu.completed ?? 1000,
    p50Ms: 1,
    p99Ms: 2,
    non2xx: 0,
    errors: 0,
    statusCodes: {},
    serverCpuSeconds: cpu.server,
    ...(cpu.load === undefined ? {} : { loadCpuSeconds: cpu.load }),
  };
}

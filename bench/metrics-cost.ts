import type { LoadResult } from './load.js';

/** Token endpoint throughput with metrics off and on (METRICS_PORT set), in req/s. */
export interface MetricsCost {
  readonly off: number;
  readonly on: number;
  readonly results: readonly LoadResult[];
}

/**
 * Off, on, off, on: alternating evens out drift on a noisy host; each side's rate is the
 * mean of its runs.
 */
export async function measureMetricsCost(measure: (metrics: boolean) => Promise<LoadResult>): Promise<MetricsCost> {
  const off: LoadResult[] = [];
  const on: LoadResult[] = [];
  for (let round = 0; round < 2; round++) {
    off.push(await measure(false));
    on.push(await measure(true));
  }
  const rate = (results: LoadResult[]) => results.reduce((sum, r) => sum + r.requestsPerSecond, 0) / results.length;
  return { off: rate(off), on: rate(on), results: [...off, ...on] };
}

/** With metrics on, the scrape must have counted every token the load received. */
export async function expectCounted(metricsPort: string, completed: number): Promise<void> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  const counted = Number(/^oauth2_tokens_issued_total\{[^}]*\} (\d+)$/m.exec(text)?.[1] ?? 0);
  if (counted < completed) throw new Error(`metrics counted ${counted} tokens, the load received ${completed}`);
}

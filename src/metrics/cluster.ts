import { AggregatorRegistry } from 'prom-client';
import type { MetricsSource, ServerMetrics } from './server-metrics.js';

/**
 * WORKERS>1: each worker counts in its own registry; the primary serves METRICS_PORT and,
 * per scrape, asks every worker for its series over the cluster IPC channel (prom-client's
 * AggregatorRegistry). Counters and histograms add up; gauges follow their `aggregator`.
 */

/** Worker side: answer the primary's scrape requests with this worker's series. */
export function reportMetricsToPrimary(metrics: ServerMetrics): void {
  new AggregatorRegistry(); // installs the worker's IPC listener (once per process)
  AggregatorRegistry.setRegistries([metrics.registry]);
}

/** Primary side: one exposition over all workers; 503 when one does not answer (it may be starting). */
export function clusterMetrics(): MetricsSource {
  const aggregator = new AggregatorRegistry();
  return {
    async scrape() {
      try {
        return { contentType: aggregator.contentType, body: await aggregator.clusterMetrics() };
      } catch {
        throw Object.assign(new Error('a worker did not answer the scrape; try again'), { statusCode: 503 });
      }
    },
  };
}

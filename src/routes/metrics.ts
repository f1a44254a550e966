import type { FastifyInstance } from 'fastify';
import type { MetricsSource } from '../metrics/server-metrics.js';

export const METRICS_PATH = '/metrics';

/** GET /metrics: the Prometheus text exposition, never cached. */
export async function metricsRoute(app: FastifyInstance, options: { readonly metrics: MetricsSource }): Promise<void> {
  app.get(METRICS_PATH, async (_request, reply) => {
    const { contentType, body } = await options.metrics.scrape();
    return reply.code(200).header('content-type', contentType).header('cache-control', 'no-store').send(body);
  });
}

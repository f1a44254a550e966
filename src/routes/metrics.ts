import type { FastifyInstance } from 'fastify';
import { HOST_PATHS } from '../endpoints.js';
import type { MetricsSource } from '../metrics/server-metrics.js';

/** GET /metrics: the Prometheus text exposition, never cached. */
export async function metricsRoute(app: FastifyInstance, options: { readonly metrics: MetricsSource }): Promise<void> {
  app.get(HOST_PATHS.metrics, async (_request, reply) => {
    const { contentType, body } = await options.metrics.scrape();
    return reply.code(200).header('content-type', contentType).header('cache-control', 'no-store').send(body);
  });
}

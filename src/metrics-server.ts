import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { useUnroutedAnswers } from './http/unrouted.js';
import type { MetricsSource } from './metrics/server-metrics.js';
import { metricsRoute } from './routes/metrics.js';

/**
 * The metrics listener (METRICS_PORT): `GET /metrics` and nothing else, apart from the
 * public listener so scrapes never share its port or its exposure. Never listens itself;
 * startServer does.
 */
export async function buildMetricsServer(
  metrics: MetricsSource,
  options: { readonly logger?: FastifyServerOptions['logger'] } = {},
): Promise<FastifyInstance> {
  const app = Fastify({ logger: options.logger ?? false, return503OnClosing: false });
  useUnroutedAnswers(app, { isBrowserPath: () => false, realm: 'metrics' });
  await app.register(metricsRoute, { metrics });
  return app;
}

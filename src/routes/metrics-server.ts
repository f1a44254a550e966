import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { useUnroutedAnswers } from '../http/unrouted.js';
import type { MetricsSource } from '../metrics/server-metrics.js';
import { metricsRoute } from './metrics.js';

/**
 * The metrics listener (METRICS_PORT): `GET /metrics` and nothing else, apart from the
 * public listener so scrapes never share its port or its exposure. Never listens itself;
 * startServer does. Scrapes are not logged (one every few seconds would drown the log).
 */
export async function buildMetricsServer(
  metrics: MetricsSource,
  options: { readonly logger?: FastifyBaseLogger } = {},
): Promise<FastifyInstance> {
  const app: FastifyInstance = options.logger
    ? Fastify({ loggerInstance: options.logger, disableRequestLogging: true, return503OnClosing: false })
    : Fastify({ logger: false, return503OnClosing: false });
  useUnroutedAnswers(app, { isBrowserPath: () => false, realm: 'metrics' });
  await app.register(metricsRoute, { metrics });
  return app;
}

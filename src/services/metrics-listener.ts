import type { FastifyInstance } from 'fastify';
import type { Config } from '../config/index.js';
import type { ServerMetrics } from '../metrics/server-metrics.js';
import { buildMetricsServer } from '../routes/metrics-server.js';

/**
 * GET /metrics on a listener of its own at METRICS_HOST:METRICS_PORT; when METRICS_PORT equals PORT,
 * buildServer serves it on the public listener instead. On failure its listener is closed (startServer closes the rest).
 */
export async function listenForMetrics(
  config: Pick<Config, 'port' | 'metricsPort' | 'metricsHost'>,
  metrics: ServerMetrics,
  app: FastifyInstance,
): Promise<{ readonly url: string; close(): Promise<void> }> {
  const port = config.metricsPort;
  if (port === undefined || port === config.port) return { url: `${app.listeningOrigin}`, close: async () => undefined };
  const metricsApp = await buildMetricsServer(metrics, { logger: app.log });
  try {
    return { url: await metricsApp.listen({ port, host: config.metricsHost }), close: () => metricsApp.close() };
  } catch (err) {
    await metricsApp.close();
    throw err;
  }
}

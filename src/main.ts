import cluster from 'node:cluster';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { runPrimary } from './cluster/primary.js';
import { primaryLog } from './cluster/primary-log.js';
import { type Config, loadConfig } from './config/index.js';
import { assertProductionReady, isProduction } from './config/production.js';
import { applyThreadPoolSize } from './config/signing.js';
import { clusterMetrics } from './metrics/cluster.js';
import { buildMetricsServer } from './routes/metrics-server.js';
import { startServer, stopOnSignals } from './server.js';

/** Production entry: configuration from the environment only. The only process.exit. */

/**
 * WORKERS>1: this process becomes the primary and the workers run this file again. Sign-in
 * sessions and signed forms must verify on whichever worker a browser reaches, so without
 * SESSION_SECRET the primary makes one random key for all of its workers (outside production,
 * which refuses to start without it).
 */
async function startPrimary(config: Config): Promise<void> {
  const log = primaryLog(config.logLevel);
  const workerEnv: Record<string, string> = {};
  if (!config.sessionSecret) {
    workerEnv.SESSION_SECRET = randomBytes(32).toString('base64url');
    log.warn(
      {},
      'SESSION_SECRET is not set: the workers share a random key made at start, lost on restart and not shared with other instances',
    );
  }
  // METRICS_PORT: served here, with the series of every worker summed (a scrape of a worker would see one).
  const metricsPort = config.metricsPort;
  const metricsApp = metricsPort === undefined ? undefined : await buildMetricsServer(clusterMetrics());
  if (metricsApp && metricsPort !== undefined) {
    const url = await metricsApp.listen({ port: metricsPort, host: config.metricsHost });
    log.info({ metrics: `${url}/metrics` }, 'metrics of all workers served by the primary');
  }
  runPrimary(
    {
      workers: config.workers,
      shutdownTimeoutMs: config.shutdownTimeout * 1000,
      log,
      workerEnv,
      afterStop: async () => void (await metricsApp?.close()),
    },
    (code) => process.exit(code),
  );
}

/**
 * How a worker exits once its server has stopped: it first disconnects from the primary and
 * waits for the primary's acknowledgement. The primary may have handed it a connection just as
 * its server closed; the worker answers such a hand-over "not accepted" and the primary gives the
 * connection to another worker, but only while the worker is there to answer. Exiting at once
 * could leave that connection with the primary, answered by no one (a request that hangs during
 * a graceful restart). The acknowledgement comes after every hand-over sent before it.
 */
function exitWorker(code: number): void {
  if (!process.connected) process.exit(code);
  const fallback = setTimeout(() => process.exit(code), WORKER_DISCONNECT_WAIT_MS);
  process.once('disconnect', () => {
    clearTimeout(fallback);
    process.exit(code);
  });
  cluster.worker?.disconnect();
}

/** The most a worker waits for the primary to acknowledge its disconnection. */
const WORKER_DISCONNECT_WAIT_MS = 2000;

try {
  const config = loadConfig();
  applyThreadPoolSize(config.threadPoolSize);
  // This file's own path: inside node_modules when it runs from the installed package.
  const production = isProduction(fileURLToPath(import.meta.url));
  if (config.workers > 1 && cluster.isPrimary) {
    // The primary reads no CLIENTS_FILE: with WORKERS, production needs SESSION_SECRET whatever the clients.
    if (production) assertProductionReady(config, []);
    await startPrimary(config);
  } else {
    const exit = cluster.isWorker ? exitWorker : (code: number) => process.exit(code);
    stopOnSignals(await startServer(config, { worker: cluster.isWorker, production }), exit);
  }
} catch (err) {
  process.stderr.write(`${(err as Error).message}\n`);
  process.exit(1);
}

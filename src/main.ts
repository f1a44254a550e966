import cluster from 'node:cluster';
import { randomBytes } from 'node:crypto';
import { runPrimary } from './cluster/primary.js';
import { primaryLog } from './cluster/primary-log.js';
import { type Config, loadConfig } from './config.js';
import { startServer, stopOnSignals } from './server.js';

/** Production entry: configuration from the environment only. The only process.exit. */

/**
 * WORKERS>1: this process becomes the primary and the workers run this file again. Sign-in
 * sessions and signed forms must verify on whichever worker a browser reaches, so without
 * SESSION_SECRET the primary makes one random key for all of its workers.
 */
function startPrimary(config: Config): void {
  const log = primaryLog(config.logLevel);
  const workerEnv: Record<string, string> = {};
  if (!config.sessionSecret) {
    workerEnv.SESSION_SECRET = randomBytes(32).toString('base64url');
    log.warn(
      {},
      'SESSION_SECRET is not set: the workers share a random key made at start, lost on restart and not shared with other instances',
    );
  }
  runPrimary({ workers: config.workers, shutdownTimeoutMs: config.shutdownTimeout * 1000, log, workerEnv }, (code) => process.exit(code));
}

try {
  const config = loadConfig();
  if (config.workers > 1 && cluster.isPrimary) startPrimary(config);
  else stopOnSignals(await startServer(config), (code) => process.exit(code));
} catch (err) {
  process.stderr.write(`${(err as Error).message}\n`);
  process.exit(1);
}

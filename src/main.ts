import { loadConfig } from './config.js';
import { startServer, stopOnSignals } from './server.js';

/** Production entry: configuration from the environment only. The only process.exit. */
try {
  const server = await startServer(loadConfig());
  stopOnSignals(server, (code) => process.exit(code));
} catch (err) {
  process.stderr.write(`${(err as Error).message}\n`);
  process.exit(1);
}

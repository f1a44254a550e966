import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { freePort } from '../test/helpers/ports.js';
import { startServerProcess, type Teardown } from '../test/helpers/process.js';
import { measuringHostLoad } from './host.js';
import { type LoadResult, measureLoad } from './load.js';

/**
 * Where to sign (issue 15, goal 3): the same bare route signing one ES256 token per request
 * on the main thread, on libuv's thread pool through node:crypto's callback form, or
 * through WebCrypto, at 1, 32 and 256 connections. Only 127.0.0.1, bounded in time.
 * Usage: npm run bench:signing -- [--duration 5]
 */

const MODES = ['main', 'threadpool', 'webcrypto'] as const;
const CONNECTIONS = [1, 32, 256] as const;
const SERVER = fileURLToPath(new URL('./signing-server.js', import.meta.url));
const BODY = 'grant_type=client_credentials&scope=read';
const HEADERS = { 'content-type': 'application/x-www-form-urlencoded' };

const cleanups: (() => unknown)[] = [];
const cleanup: Teardown = { teardown: (stop) => void cleanups.push(stop) };

async function main(): Promise<void> {
  const { values } = parseArgs({ args: process.argv.slice(2), options: { duration: { type: 'string' } }, strict: true });
  const durationSeconds = Number(values.duration ?? '5');
  if (!Number.isInteger(durationSeconds) || durationSeconds < 1) throw new Error('--duration must be a positive whole number');
  const results = new Map<string, LoadResult>();
  const servers = await Promise.all(
    MODES.map(async (mode) => ({
      mode,
      server: await startServerProcess(cleanup, { PORT: String(await freePort()), SIGN_MODE: mode }, { script: SERVER }),
    })),
  );
  const host = await measuringHostLoad(async () => {
    for (const [level, connections] of CONNECTIONS.entries()) {
      // Each level starts with another mode, so a drift in the host's load does not favour one.
      for (const { mode, server } of [...servers.slice(level), ...servers.slice(0, level)]) {
        process.stdout.write(`${mode}, ${connections} connections...\n`);
        const result = await measureLoad(
          { url: `${server.baseUrl}/token`, headers: HEADERS, body: BODY },
          { connections, durationSeconds, warmupSeconds: 1 },
        );
        if (result.errors > 0 || result.non2xx > 0)
          throw new Error(`${mode} at ${connections} connections: ${result.errors} errors, ${result.non2xx} non-2xx`);
        results.set(`${mode} ${connections}`, result);
      }
    }
  });
  const lines = ['', '| connections | ' + MODES.join(' | ') + ' |', '|---|' + MODES.map(() => '---|').join('')];
  for (const connections of CONNECTIONS) {
    const cells = MODES.map((mode) => {
      const r = results.get(`${mode} ${connections}`) as LoadResult;
      return `${Math.round(r.requestsPerSecond)} req/s, p50 ${r.p50Ms} / p99 ${r.p99Ms} ms`;
    });
    lines.push(`| ${connections} | ${cells.join(' | ')} |`);
  }
  if (host.host) lines.push(`host: CPU steal ${host.host.stealPercent.toFixed(0)}%, other processes ${host.host.otherPercent.toFixed(0)}%`);
  process.stdout.write(`${lines.join('\n')}\n`);
}

main()
  .catch((err: Error) => {
    process.stderr.write(`error: ${err.message}\n`);
    process.exitCode = 1;
  })
  .finally(async () => {
    for (const stop of cleanups) await stop();
  });

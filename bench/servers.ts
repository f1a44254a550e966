import { fileURLToPath } from 'node:url';
import type { SigningThread } from '../src/tokens/jws.js';
import { freePort } from '../harness/ports.js';
import { type ServerProcess, startServerProcess, type Teardown } from '../harness/process.js';
import { CLIENT_ID, type Fixtures, REDIRECT_URI, RESOURCE, SCOPE, SUBJECT } from './fixtures.js';

/** The processes the bench measures, each started on a free 127.0.0.1 port and stopped by `cleanup`. */

export const LOG_LEVEL = 'warn';
const BARE_SERVER_SCRIPT = fileURLToPath(new URL('./bare-server.js', import.meta.url));
const OUR_SERVER_SCRIPT = fileURLToPath(new URL('../src/main.js', import.meta.url));
const PEER_SERVER_SCRIPT = fileURLToPath(new URL('./peer/server.js', import.meta.url));
/** Time a second worker gets to listen after the first answers (the primary hands connections only to listening workers). */
const WORKERS_SETTLE_MS = 2000;

export function startBare(cleanup: Teardown): Promise<ServerProcess> {
  return freePort().then((port) => startServerProcess(cleanup, { PORT: String(port) }, { script: BARE_SERVER_SCRIPT }));
}

export interface OurServerOptions {
  /** Undefined: the in-memory store. */
  readonly redisUrl?: string;
  readonly workers?: number;
  readonly metricsPort?: string;
  /** ACCESS_TOKEN_SIGNING; undefined: the server's default. */
  readonly signing?: SigningThread;
  /** WORKLOAD_TRUSTS_FILE: the bench's workload trust (phase (g)). */
  readonly workloads?: boolean;
  /** UV_THREADPOOL_SIZE; undefined: the server's default (phase (h)). */
  readonly threadPoolSize?: number;
}

export async function startOurs(cleanup: Teardown, fixtures: Fixtures, options: OurServerOptions = {}): Promise<ServerProcess> {
  const workers = options.workers ?? 1;
  const env = {
    PORT: String(await freePort()),
    KEYS_DIR: fixtures.keysDir,
    CLIENTS_FILE: fixtures.clientsFile,
    RESOURCES_FILE: fixtures.resourcesFile,
    ACCESS_TOKEN_AUDIENCE: RESOURCE,
    WORKERS: String(workers),
    LOG_LEVEL,
    ...(options.redisUrl ? { REDIS_URL: options.redisUrl } : {}),
    ...(options.metricsPort ? { METRICS_PORT: options.metricsPort } : {}),
    ...(options.signing ? { ACCESS_TOKEN_SIGNING: options.signing } : {}),
    ...(options.workloads ? { WORKLOAD_TRUSTS_FILE: fixtures.workloadTrustsFile } : {}),
    ...(options.threadPoolSize ? { UV_THREADPOOL_SIZE: String(options.threadPoolSize) } : {}),
  };
  const server = await startServerProcess(cleanup, env, { script: OUR_SERVER_SCRIPT });
  if (workers > 1) await new Promise((resolve) => setTimeout(resolve, WORKERS_SETTLE_MS));
  return server;
}

export async function startPeer(cleanup: Teardown, fixtures: Fixtures, redisUrl: string): Promise<ServerProcess> {
  const port = await freePort();
  const settings = {
    issuer: `http://127.0.0.1:${port}`,
    clientId: CLIENT_ID,
    clientSecret: fixtures.clientSecret,
    redirectUri: REDIRECT_URI,
    resource: RESOURCE,
    scope: SCOPE,
    jwk: fixtures.peerJwk,
    subject: SUBJECT,
  };
  return startServerProcess(
    cleanup,
    { PORT: String(port), REDIS_URL: redisUrl, BENCH_PEER: JSON.stringify(settings), NODE_ENV: 'production' },
    { script: PEER_SERVER_SCRIPT, readyPath: '/.well-known/openid-configuration' },
  );
}

import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';
import { constants } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';

/** Server child processes for the bench: started on a free port, polled until ready, always killed. */

const READY_TIMEOUT_MS = 15_000;
const POLL_INTERVAL_MS = 100;
const STOP_GRACE_MS = 5_000;
const OUTPUT_TAIL_CHARS = 4_000;

const running = new Set<ChildProcess>();

// Last resort: whatever way the bench ends, no server outlives it.
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => process.exit(128 + constants.signals[signal]));
}

/** A port that was free a moment ago: the OS picks it for a listener on port 0. */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, 'close');
  return port;
}

export interface ServerProcess {
  readonly baseUrl: string;
  /** The last few thousand characters the child wrote to stdout and stderr. */
  output(): string;
  stop(): Promise<void>;
}

export interface ServerSpec {
  readonly name: string;
  readonly script: string;
  readonly port: number;
  /** The child's whole environment (nothing is inherited but what is listed). */
  readonly env: NodeJS.ProcessEnv;
  /** Answers true once the server serves; called every 100 ms until it does. */
  readonly isReady: (baseUrl: string) => Promise<boolean>;
}

function exited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (!exited(child)) {
    const exit = once(child, 'exit');
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
    await exit;
    clearTimeout(timer);
  }
  running.delete(child);
}

async function waitUntilReady(spec: ServerSpec, child: ChildProcess, baseUrl: string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (exited(child)) throw new Error(`${spec.name} exited during start-up (code ${child.exitCode})`);
    if (await spec.isReady(baseUrl).catch(() => false)) return;
    await sleep(POLL_INTERVAL_MS);
  }
  throw new Error(`${spec.name} was not ready within ${READY_TIMEOUT_MS / 1000} s`);
}

/** Spawns `node <script>` and resolves once it is ready; on failure it is killed and the error carries its output. */
export async function startServerProcess(spec: ServerSpec): Promise<ServerProcess> {
  const child = spawn(process.execPath, [spec.script], { env: spec.env, stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  let tail = '';
  const keepTail = (chunk: Buffer) => {
    tail = (tail + chunk.toString('utf8')).slice(-OUTPUT_TAIL_CHARS);
  };
  child.stdout?.on('data', keepTail);
  child.stderr?.on('data', keepTail);
  child.on('error', (err) => keepTail(Buffer.from(`${err.message}\n`)));

  const baseUrl = `http://127.0.0.1:${spec.port}`;
  try {
    await waitUntilReady(spec, child, baseUrl);
  } catch (err) {
    await stopChild(child);
    throw new Error(`${(err as Error).message}\n--- ${spec.name} output ---\n${tail}`);
  }
  return { baseUrl, output: () => tail, stop: () => stopChild(child) };
}

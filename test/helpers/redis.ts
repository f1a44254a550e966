import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { connect } from 'node:net';
import type { Test } from 'tap';
import { freePort } from './ports.js';

/** A private redis-server on a free port, killed when the test ends. Never skipped: if it cannot start, the test fails. */
export interface PrivateRedis {
  readonly url: string;
  readonly port: number;
  /** Stops the server abruptly (an outage). */
  kill(): Promise<void>;
  /** Freezes the server (SIGSTOP): connections stay open, commands hang. */
  freeze(): void;
  thaw(): void;
}

async function waitForPort(port: number, deadline: number): Promise<void> {
  while (Date.now() < deadline) {
    const reachable = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.end();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (reachable) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`redis-server did not start on port ${port}`);
}

export async function startPrivateRedis(t: Test): Promise<PrivateRedis> {
  const port = await freePort();
  const child: ChildProcess = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--loglevel', 'warning'],
    { stdio: 'ignore' },
  );
  const failed = new Promise<never>((_, reject) =>
    child.once('error', (err) => reject(new Error(`cannot run redis-server: ${err.message}`))),
  );
  await Promise.race([waitForPort(port, Date.now() + 10_000), failed]);
  let exited = false;
  child.once('exit', () => (exited = true));
  const kill = async () => {
    if (exited) return;
    const gone = once(child, 'exit');
    child.kill('SIGCONT');
    child.kill('SIGKILL');
    await gone;
  };
  t.teardown(kill);
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    kill,
    freeze: () => child.kill('SIGSTOP'),
    thaw: () => child.kill('SIGCONT'),
  };
}

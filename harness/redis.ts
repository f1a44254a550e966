import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { connect } from 'node:net';
import type { RedisTopology } from '../src/store/redis-connection.js';
import { freePort } from './ports.js';
import type { Teardown } from './process.js';

/** One redis-server process (a node, a replica, a sentinel), killed when the test ends. */
export interface RedisProcess {
  readonly port: number;
  /** The redis-server process (the bench reads its CPU time). */
  readonly pid: number | undefined;
  readonly url: string;
  /** Stops the server abruptly (SIGKILL: an outage, a crashed primary). */
  kill(): Promise<void>;
  /** Freezes the server (SIGSTOP): connections stay open, commands hang. */
  freeze(): void;
  thaw(): void;
  readonly exited: () => boolean;
}

/** A private redis-server on a free port. Never skipped: if it cannot start, the test fails. */
export interface PrivateRedis extends RedisProcess {
  readonly topology: RedisTopology;
}

/**
 * Until the redis-server of process `pid` answers on `port`. A TCP connect alone is not
 * enough: redis-server binds its port before it binds a cluster bus port, and exits when
 * that one is taken (`freePort` in another test process can return the same port; it never
 * does twice in one process), so a connect in that moment passed and the node was gone when the cluster was
 * created; and a listener of another process on the port would pass too. Redis answers
 * commands only once it is fully started, and INFO names its process.
 */
async function waitForServer(port: number, pid: number | undefined, deadline: number): Promise<void> {
  while (Date.now() < deadline) {
    if (pid !== undefined && (await answeringProcess(port)) === pid) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`redis-server did not start on port ${port}`);
}

/** The process_id the server on `port` gives in `INFO server`, or undefined when none answers. */
function answeringProcess(port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let reply = '';
    const done = (pid: number | undefined) => {
      socket.destroy();
      resolve(pid);
    };
    socket.setTimeout(1000, () => done(undefined));
    socket.once('connect', () => socket.write('INFO server\r\n'));
    socket.on('data', (chunk) => {
      reply += chunk.toString('latin1');
      const pid = /\r\nprocess_id:(\d+)\r\n/.exec(reply)?.[1];
      if (pid !== undefined) done(Number(pid));
      else if (!reply.startsWith('$')) done(undefined);
    });
    socket.once('error', () => done(undefined));
    socket.once('close', () => done(undefined));
  });
}

/** Options every test server shares: loopback only, no persistence, quiet. */
export const QUIET_NODE = ['--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--loglevel', 'warning'];

/**
 * Runs `redis-server <args>` listening on `port` and waits until it accepts connections;
 * rejects when the binary is missing or the server exits or does not listen within 10 s.
 */
export async function startRedisProcess(t: Teardown, port: number, args: string[], cwd?: string): Promise<RedisProcess> {
  const child: ChildProcess = spawn('redis-server', args, { stdio: 'ignore', ...(cwd ? { cwd } : {}) });
  let exited = false;
  const gone = once(child, 'exit').then(() => (exited = true));
  const failed = new Promise<never>((_, reject) => {
    child.once('error', (err) => reject(new Error(`cannot run redis-server: ${err.message}`)));
    void gone.then(() => reject(new Error(`redis-server ${args.join(' ')} exited during start`)));
  });
  failed.catch(() => undefined);
  const kill = async () => {
    if (exited || child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGCONT');
    child.kill('SIGKILL');
    await gone;
  };
  t.teardown(kill);
  await Promise.race([waitForServer(port, child.pid, Date.now() + 10_000), failed]);
  return {
    port,
    pid: child.pid,
    url: `redis://127.0.0.1:${port}`,
    kill,
    freeze: () => child.kill('SIGSTOP'),
    thaw: () => child.kill('SIGCONT'),
    exited: () => exited,
  };
}

/**
 * Starts a server on ports `attempt` picks itself, again on other ports when it exits during
 * start: a free port found by `freePort` can be taken by another process before redis-server
 * binds it (tests and other work share the host), and a server that cannot bind exits.
 */
export async function onFreePorts<T>(attempt: () => Promise<T>, tries = 3): Promise<T> {
  for (let left = tries - 1; ; left -= 1) {
    try {
      return await attempt();
    } catch (err) {
      if (left === 0 || !(err as Error).message.endsWith('exited during start')) throw err;
    }
  }
}

export async function startPrivateRedis(t: Teardown): Promise<PrivateRedis> {
  const server = await onFreePorts(async () => {
    const port = await freePort();
    return startRedisProcess(t, port, ['--port', String(port), ...QUIET_NODE]);
  });
  return { ...server, topology: { kind: 'standalone', url: server.url } };
}

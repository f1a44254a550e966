import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join, resolve } from 'node:path';
import { REPOSITORY } from './repository.js';

/** Runs the built code (`npm test` builds first), as operators and CI do; paths from the repository root. */
export { REPOSITORY };
export const DIST = join(REPOSITORY, 'dist');
/** The built `oauth2-token-service` command, for `runNode`. */
export const CLI = 'src/cli/index.js';

/** Where cleanup goes: a tap test (`t.teardown`), or the bench's own list. */
export interface Teardown {
  teardown(cleanup: () => unknown): void;
}

export interface CommandResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs a built script; `input`, when given, is written to its standard input. A server it
 * starts listens on 127.0.0.1 unless `env` says otherwise (the production default is 0.0.0.0).
 */
export async function runNode(
  script: string,
  args: string[] = [],
  env: Record<string, string> = {},
  input?: string,
): Promise<CommandResult> {
  const child = spawn(process.execPath, [join(DIST, script), ...args], {
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', ...env },
    stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  if (input !== undefined) child.stdin?.end(input);
  return outcomeOf(child);
}

/**
 * Runs a program (npm, or node on a file outside dist/) in `cwd`. npm gets the test's
 * environment less the variables an enclosing `npm test` sets (npm_*), so it behaves
 * as it would when an operator types it.
 */
export async function runProgram(command: string, args: string[], cwd: string, env: Record<string, string> = {}): Promise<CommandResult> {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith('npm_')));
  return outcomeOf(spawn(command, args, { cwd, env: { ...inherited, ...env }, stdio: ['ignore', 'pipe', 'pipe'] }));
}

/** Everything a child writes, and its exit code, once it exits. */
async function outcomeOf(child: ChildProcess): Promise<CommandResult> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk) => (stdout += chunk));
  child.stderr?.on('data', (chunk) => (stderr += chunk));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, stdout, stderr };
}

export interface ServerProcess {
  readonly child: ChildProcess;
  readonly baseUrl: string;
  /** Log lines printed so far (JSON, one per line). */
  readonly output: () => string;
  stop(): Promise<void>;
}

/**
 * Starts a built server (by default `dist/src/main.js`) and waits until `readyPath`
 * answers 2xx (or, with `anyStatus`, answers at all); killed when the test ends.
 */
export async function startServerProcess(
  t: Teardown,
  env: Record<string, string>,
  options: {
    script?: string;
    /** Another command line to start it with (`npm start`, the installed bin), in `cwd`: stopped as a process group. */
    command?: readonly [string, ...string[]];
    cwd?: string;
    readyPath?: string;
    anyStatus?: boolean;
  } = {},
): Promise<ServerProcess> {
  const [file, ...args] = options.command ?? [process.execPath, resolve(DIST, options.script ?? 'src/main.js')];
  const group = options.command !== undefined;
  const child = spawn(file, args, {
    cwd: options.cwd,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root', HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: group,
  });
  const signal = (name: NodeJS.Signals) => (group && child.pid !== undefined ? process.kill(-child.pid, name) : child.kill(name));
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  let exited = false;
  child.once('exit', () => (exited = true));
  const stop = async () => {
    if (exited) return;
    const gone = once(child, 'exit');
    signal('SIGTERM');
    const timer = setTimeout(() => signal('SIGKILL'), 5000);
    await gone;
    clearTimeout(timer);
  };
  t.teardown(stop);
  const baseUrl = `http://127.0.0.1:${env.PORT}`;
  // 30 s: a start takes under a second on a quiet host, but over 15 s was seen on a loaded one.
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (exited) throw new Error(`server exited during start:\n${output}`);
    try {
      const res = await fetch(`${baseUrl}${options.readyPath ?? '/healthz'}`);
      if (res.ok || options.anyStatus) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`server did not start:\n${output}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return { child, baseUrl, output: () => output, stop };
}

/**
 * Waits (up to `timeoutMs`) until the server has printed what `printed` looks for: a log
 * line written before an HTTP answer may still be in the pipe when the answer arrives.
 */
export async function untilPrinted(server: ServerProcess, printed: (output: string) => boolean, timeoutMs = 5000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!printed(server.output())) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return true;
}

import cluster, { type Worker } from 'node:cluster';
import { once } from 'node:events';
import { CrashBackoff } from './crash-backoff.js';
import type { PrimaryLog } from './primary-log.js';

/**
 * WORKERS=N: the primary forks N workers that each run the whole server on the same PORT
 * (node:cluster hands connections to them in turn) and serves nothing itself. It
 * - forwards SIGHUP to every worker (each reloads its keys and registries);
 * - stops on SIGTERM or SIGINT: every worker closes gracefully within SHUTDOWN_TIMEOUT,
 *   then the primary exits;
 * - replaces a worker that dies unexpectedly, after a back-off that grows while crashes
 *   follow each other;
 * - on SIGUSR2 replaces the workers one by one: a new worker listens before an old one
 *   closes, so no request is dropped;
 * - exits with status 1 if a worker dies before it listened at start (its own log says
 *   why: a bad key file, a registry it cannot read, a port in use).
 */

export interface PrimaryOptions {
  readonly workers: number;
  readonly shutdownTimeoutMs: number;
  readonly log: PrimaryLog;
  /** Variables the workers get on top of the primary's environment. */
  readonly workerEnv?: Readonly<Record<string, string>>;
  readonly backoff?: CrashBackoff;
  /** Runs once every worker has stopped, before the primary exits (the metrics listener closes). */
  readonly afterStop?: () => Promise<void>;
}

/** Past SHUTDOWN_TIMEOUT, how long a worker gets to exit before it is killed. */
const EXIT_GRACE_MS = 5000;

interface WorkerState {
  readonly startedAt: number;
  listening: boolean;
  /** Stopped on purpose (graceful restart, shutdown): its exit is no crash. */
  retiring: boolean;
  /** Started by a graceful restart that handles its failure itself. */
  candidate: boolean;
  /** A SIGHUP came while it was starting: sent once it listens. */
  reloadPending: boolean;
}

export function runPrimary(options: PrimaryOptions, exit: (code: number) => void): void {
  const { log } = options;
  const backoff = options.backoff ?? new CrashBackoff();
  const workers = new Map<Worker, WorkerState>();
  const replacements = new Set<NodeJS.Timeout>();
  let started = false;
  let stopping = false;
  let restarting = false;

  const fork = (candidate = false): Worker => {
    const worker = cluster.fork(options.workerEnv);
    const state: WorkerState = { startedAt: Date.now(), listening: false, retiring: false, candidate, reloadPending: false };
    workers.set(worker, state);
    worker.once('listening', () => {
      state.listening = true;
      if (state.reloadPending) worker.process.kill('SIGHUP');
      log.info({ worker: worker.process.pid }, 'worker listening');
      if (!started && [...workers.values()].every((s) => s.listening)) {
        started = true;
        log.info({ workers: workers.size }, 'all workers listening');
      }
    });
    return worker;
  };

  /** Resolves once the worker listens; rejects if it exits first. */
  const listening = (worker: Worker) =>
    new Promise<void>((resolve, reject) => {
      worker.once('listening', () => resolve());
      worker.once('exit', () => reject(new Error('exited before it listened')));
    });

  /** Asks a worker to close gracefully; kills it if it has not exited in time. */
  const retire = async (worker: Worker) => {
    const state = workers.get(worker);
    if (state) state.retiring = true;
    const gone = once(worker, 'exit');
    const killer = setTimeout(() => {
      log.warn({ worker: worker.process.pid }, 'worker did not exit within SHUTDOWN_TIMEOUT; killing it');
      worker.process.kill('SIGKILL');
    }, options.shutdownTimeoutMs + EXIT_GRACE_MS);
    worker.process.kill('SIGTERM');
    await gone;
    clearTimeout(killer);
  };

  cluster.on('exit', (worker, code, signal) => {
    const state = workers.get(worker);
    workers.delete(worker);
    if (!state || stopping || state.retiring) return;
    const fields = { worker: worker.process.pid, code, signal };
    if (!started) {
      log.error(fields, 'a worker exited during start; stopping');
      void stop(1);
      return;
    }
    // A failed graceful-restart candidate: the restart reports it and keeps the old worker.
    if (state.candidate && !state.listening) return;
    const delayMs = backoff.delayAfterCrash(Date.now() - state.startedAt);
    log.error({ ...fields, restartInMs: delayMs }, 'worker died; starting a replacement');
    const timer = setTimeout(() => {
      replacements.delete(timer);
      if (!stopping) fork();
    }, delayMs);
    replacements.add(timer);
  });

  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    for (const timer of replacements) clearTimeout(timer);
    await Promise.all([...workers.keys()].map(retire));
    await options.afterStop?.();
    log.info({}, 'all workers stopped');
    exit(code);
  };

  const reload = () => {
    for (const [worker, state] of workers) {
      if (state.listening) worker.process.kill('SIGHUP');
      else state.reloadPending = true;
    }
    log.info({ workers: workers.size }, 'SIGHUP forwarded to the workers');
  };

  const restart = async () => {
    if (restarting || stopping || !started) {
      log.warn({}, 'SIGUSR2 ignored: the workers are starting, restarting or stopping');
      return;
    }
    restarting = true;
    log.info({ workers: workers.size }, 'graceful restart: replacing the workers one by one');
    try {
      for (const old of [...workers.keys()]) {
        if (stopping) return;
        if (!workers.has(old)) continue; // died meanwhile; its replacement is new already
        const fresh = fork(true);
        try {
          await listening(fresh);
        } catch {
          log.error({ worker: fresh.process.pid }, 'graceful restart stopped: a new worker did not start; the others keep serving');
          return;
        }
        const freshState = workers.get(fresh);
        if (freshState) freshState.candidate = false;
        await retire(old);
      }
      log.info({ workers: workers.size }, 'graceful restart done');
    } finally {
      restarting = false;
    }
  };

  process.on('SIGHUP', reload);
  process.on('SIGUSR2', () => void restart());
  process.on('SIGTERM', () => void stop(0));
  process.on('SIGINT', () => void stop(0));

  log.info({ workers: options.workers }, 'starting workers');
  for (let i = 0; i < options.workers; i += 1) fork();
}

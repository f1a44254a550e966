import { pbkdf2, pbkdf2Sync } from 'node:crypto';

/**
 * Keeps every thread of libuv's pool busy for about `ms` (PBKDF2 jobs, one per thread, sized
 * by a measurement of this host), so a test can tell work that needs the pool from work that
 * does not. `settled()` says whether the jobs are done; `done` settles when they are.
 */
export function occupyThreadPool(ms: number): { readonly done: Promise<void>; settled(): boolean } {
  const sample = 20_000;
  const started = performance.now();
  pbkdf2Sync('pool', 'salt', sample, 32, 'sha256');
  const iterations = Math.ceil((sample * ms) / Math.max(performance.now() - started, 0.1));
  // libuv's pool has UV_THREADPOOL_SIZE threads (4 unless set), read when it first starts.
  const threads = Number(process.env.UV_THREADPOOL_SIZE ?? 4);
  let finished = false;
  const done = Promise.all(
    Array.from(
      { length: threads },
      () =>
        new Promise<void>((resolve, reject) => pbkdf2('pool', 'salt', iterations, 32, 'sha256', (err) => (err ? reject(err) : resolve()))),
    ),
  ).then(() => void (finished = true));
  return { done, settled: () => finished };
}

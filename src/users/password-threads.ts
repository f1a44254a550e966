import { Piscina } from 'piscina';
import type { ScryptTask } from './scrypt-thread.js';

/**
 * scrypt on worker threads of its own, not on libuv's thread pool. The pool is where access
 * tokens are signed and client assertions verified, and it is kept small
 * (src/config/signing.ts): one sign-in's scrypt there (about 50 ms) would hold every token
 * behind it. Threads start on first need and stop after IDLE_MS without work, so a server
 * without sign-ins runs none, and a command-line hash (`users add`) lets its process exit.
 *
 * piscina rather than threads of our own: it is the worker pool maintained beside Node
 * (queueing, a thread replaced when it dies, idle threads stopped and unreferenced).
 */

/** How long an idle thread is kept for the next sign-in. */
const IDLE_MS = 30_000;

let threads = 4;
let pool: Piscina<ScryptTask, Uint8Array> | undefined;

/**
 * The most threads computing scrypt at once (PASSWORD_VERIFY_CONCURRENCY); more checks wait
 * for a thread. Takes effect for a pool made after it: the server sets it before its first
 * sign-in.
 */
export function setPasswordThreads(count: number): void {
  if (count === threads) return;
  threads = count;
  const previous = pool;
  pool = undefined;
  // The old pool finishes what it runs; its threads then stop.
  void previous?.close();
}

export async function scryptOnThread(task: ScryptTask): Promise<Buffer> {
  pool ??= new Piscina<ScryptTask, Uint8Array>({
    filename: new URL('./scrypt-thread.js', import.meta.url).href,
    minThreads: 0,
    maxThreads: threads,
    idleTimeout: IDLE_MS,
  });
  const derived = await pool.run(task);
  // The result crosses threads as a Uint8Array; a Buffer over the same bytes, without a copy.
  return Buffer.from(derived.buffer, derived.byteOffset, derived.byteLength);
}

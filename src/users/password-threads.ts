import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import type { ScryptTask } from './scrypt-thread.js';

/**
 * scrypt on worker threads of its own, not on libuv's thread pool. The pool is where access
 * tokens are signed and client assertions verified, and it is kept small
 * (src/config/signing.ts): one sign-in's scrypt there (about 50 ms) would hold every token
 * behind it. The threads start together at the first check and are then kept, so a server
 * without sign-ins runs none and a later burst of sign-ins never waits for a thread to start
 * (the sign-in throttle waits only half a second for checks in flight). An idle thread holds
 * no reference, so a command-line hash (`users add`) lets its process exit.
 *
 * piscina rather than threads of our own: it is the worker pool maintained beside Node
 * (queueing, a thread replaced when it dies, idle threads unreferenced).
 */

/**
 * How many: one per CPU, at most 4. More would not check faster (scrypt keeps a core busy), and
 * PASSWORD_VERIFY_CONCURRENCY bounds the checks admitted at once; checks beyond the threads
 * wait for a free one.
 */
const THREADS = Math.min(4, availableParallelism());
let pool: Piscina<ScryptTask, Uint8Array> | undefined;

export async function scryptOnThread(task: ScryptTask): Promise<Buffer> {
  pool ??= new Piscina<ScryptTask, Uint8Array>({
    filename: new URL('./scrypt-thread.js', import.meta.url).href,
    minThreads: THREADS,
    maxThreads: THREADS,
  });
  const derived = await pool.run(task);
  // The result crosses threads as a Uint8Array; a Buffer over the same bytes, without a copy.
  return Buffer.from(derived.buffer, derived.byteOffset, derived.byteLength);
}

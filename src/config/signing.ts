import { z } from 'zod';
import { SIGNING_ALGORITHMS, type SigningAlgorithm } from '@oauth2-token-service/verifier/algorithms';
import type { SigningThread } from '../tokens/jws.js';
import { integer } from './fields.js';

/** ACCESS_TOKEN_SIGNING, ACCESS_TOKEN_SIGNING_ALG and UV_THREADPOOL_SIZE, parsed by src/config/index.ts with the others (the only reader of process.env). */

const SIGNING_CHOICES = ['auto', 'main-thread', 'thread-pool'] as const satisfies readonly (SigningThread | 'auto')[];

export const SIGNING_FIELDS = {
  ACCESS_TOKEN_SIGNING: z
    .enum(SIGNING_CHOICES, { message: `ACCESS_TOKEN_SIGNING must be one of ${SIGNING_CHOICES.join(', ')}` })
    .default('auto'),
  ACCESS_TOKEN_SIGNING_ALG: z
    .enum(SIGNING_ALGORITHMS, { message: `ACCESS_TOKEN_SIGNING_ALG must be one of ${SIGNING_ALGORITHMS.join(', ')}` })
    .optional(),
  // libuv's own variable, read here so its value is checked and its default is ours (threadPoolSize below).
  UV_THREADPOOL_SIZE: integer('UV_THREADPOOL_SIZE', 1, 1024).optional(),
};

type SigningVariables = z.output<z.ZodObject<typeof SIGNING_FIELDS>>;

export interface SigningConfig {
  /** Where access tokens are signed: the event loop's thread, or libuv's thread pool (UV_THREADPOOL_SIZE). */
  readonly accessTokenSigning: SigningThread;
  /**
   * The chain of KEYS_DIR that signs access tokens; undefined: ES256 when the folder has
   * ES256 keys, otherwise that of its newest key (src/keys/signing-algorithms.ts).
   */
  readonly accessTokenSigningAlg: SigningAlgorithm | undefined;
  /** libuv's thread pool size in each server process: UV_THREADPOOL_SIZE, else threadPoolSize's default. */
  readonly threadPoolSize: number;
}

/** libuv's default, and the most threads the default below gives a process. */
const LIBUV_DEFAULT_POOL = 4;

/**
 * The default size of libuv's thread pool: one thread for each CPU left over beside the
 * server processes' event loops, at least one and at most libuv's own 4. Signatures and
 * verifications are the pool's only work on the token path: scrypt runs on worker threads of
 * its own (src/users/password-threads.ts) and the fetcher of URLs a client names resolves
 * through c-ares (src/fetch/resolver.ts). Why fewer threads: on two cores shared with the
 * load, every signature handed to an idle pool thread wakes it and takes the event loop's
 * core; with one thread, jobs queued while it works wake nobody. `npm run bench` measured
 * +27 to +44 % for one process with one thread instead of four (BENCHMARKS.md).
 */
export function defaultThreadPoolSize(workers: number, cpus: number): number {
  return Math.max(1, Math.min(LIBUV_DEFAULT_POOL, Math.floor(cpus / workers) - 1));
}

/**
 * `auto`: the thread pool while a CPU is left over beside the server processes (WORKERS
 * below the available CPUs), so a signature runs beside the event loop instead of inside
 * it; the event loop's thread when every CPU already runs a worker, where handing each
 * signature to another thread only adds work. `npm run bench:signing` on two cores: one
 * process +44 % at 32 connections and +36 % at 256 on the pool, -15 % at one connection;
 * two workers -9 % and +7 %.
 */
export function signingConfig(e: SigningVariables, workers: number, cpus: number): SigningConfig {
  const choice = e.ACCESS_TOKEN_SIGNING;
  return {
    accessTokenSigning: choice !== 'auto' ? choice : workers < cpus ? 'thread-pool' : 'main-thread',
    accessTokenSigningAlg: e.ACCESS_TOKEN_SIGNING_ALG,
    threadPoolSize: e.UV_THREADPOOL_SIZE ?? defaultThreadPoolSize(workers, cpus),
  };
}

/**
 * Sets the size of libuv's thread pool for this process (and the workers it forks, which
 * inherit the environment). libuv reads UV_THREADPOOL_SIZE once, when the pool first starts,
 * so the entries call this right after reading the configuration, which is synchronous, before
 * anything uses the pool.
 */
export function applyThreadPoolSize(size: number): void {
  process.env.UV_THREADPOOL_SIZE = String(size);
}

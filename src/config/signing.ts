import { z } from 'zod';
import { SIGNING_ALGORITHMS, type SigningAlgorithm } from '@oauth2-token-service/verifier/algorithms';
import type { SigningThread } from '../tokens/jws.js';

/** ACCESS_TOKEN_SIGNING and ACCESS_TOKEN_SIGNING_ALG, parsed by src/config/index.ts with the others (the only reader of process.env). */

const SIGNING_CHOICES = ['auto', 'main-thread', 'thread-pool'] as const satisfies readonly (SigningThread | 'auto')[];

export const SIGNING_FIELDS = {
  ACCESS_TOKEN_SIGNING: z
    .enum(SIGNING_CHOICES, { message: `ACCESS_TOKEN_SIGNING must be one of ${SIGNING_CHOICES.join(', ')}` })
    .default('auto'),
  ACCESS_TOKEN_SIGNING_ALG: z
    .enum(SIGNING_ALGORITHMS, { message: `ACCESS_TOKEN_SIGNING_ALG must be one of ${SIGNING_ALGORITHMS.join(', ')}` })
    .optional(),
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
  };
}

import { scryptSync } from 'node:crypto';

/**
 * What a password thread runs (src/users/password-threads.ts): one scrypt, synchronously, on
 * its own thread. Synchronous on purpose: the asynchronous scrypt would go to libuv's thread
 * pool, where the access tokens' signatures wait behind it.
 */
export interface ScryptTask {
  readonly password: string;
  readonly salt: Uint8Array;
  readonly keyLength: number;
  readonly N: number;
  readonly r: number;
  readonly p: number;
}

export default function scrypt({ password, salt, keyLength, N, r, p }: ScryptTask): Uint8Array {
  return scryptSync(password, salt, keyLength, { N, r, p, maxmem: 2 * 128 * N * r });
}

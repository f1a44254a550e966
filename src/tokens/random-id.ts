import { randomFillSync } from 'node:crypto';

/**
 * Random values for the token endpoint's hot path from a pre-filled pool: one
 * randomBytes() call per value is measurably slow there (each call is a trip into
 * OpenSSL's RAND_bytes), refilling 4 KiB at a time is not. Each byte is handed out once
 * and wiped from the pool as it leaves, so the pool never holds a value already in use.
 */
const POOL_SIZE = 4096;
const ID_BYTES = 16;
const pool = Buffer.alloc(POOL_SIZE);
let offset = POOL_SIZE;

/** The next `length` bytes of the pool (at most 256), as base64url; the pool's copy is wiped. */
export function randomBase64url(length: number): string {
  const start = take(length);
  const value = pool.toString('base64url', start, start + length);
  pool.fill(0, start, start + length);
  return value;
}

/** `length` fresh random bytes (at most 256) in a buffer of their own; the pool's copy is wiped. */
export function randomBuffer(length: number): Buffer {
  const start = take(length);
  const value = Buffer.from(pool.subarray(start, start + length));
  pool.fill(0, start, start + length);
  return value;
}

/** A 128-bit random identifier (jti, grant id), base64url. */
export function randomId(): string {
  return randomBase64url(ID_BYTES);
}

function take(length: number): number {
  if (!Number.isInteger(length) || length < 1 || length > 256) throw new RangeError('a pooled random value is 1 to 256 bytes');
  if (offset + length > POOL_SIZE) {
    randomFillSync(pool);
    offset = 0;
  }
  const start = offset;
  offset += length;
  return start;
}

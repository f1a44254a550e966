import { randomFillSync } from 'node:crypto';

/**
 * 128-bit random identifiers (jti) from a pre-filled pool: one randomBytes() call per
 * token is measurably slow on the token endpoint's hot path; refilling 4 KiB at a time
 * is not. Values are never reused: each is sliced once from the pool.
 */
const POOL_SIZE = 4096;
const ID_BYTES = 16;
const pool = Buffer.alloc(POOL_SIZE);
let offset = POOL_SIZE;

export function randomId(): string {
  if (offset + ID_BYTES > POOL_SIZE) {
    randomFillSync(pool);
    offset = 0;
  }
  const id = pool.toString('base64url', offset, offset + ID_BYTES);
  offset += ID_BYTES;
  return id;
}

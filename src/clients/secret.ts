import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { sha256Bytes } from '../shared/sha256.js';

/**
 * Client secrets are generated with 256 bits of entropy, so a fast SHA-256 digest is
 * a safe stored form (no slow password hash on every token request), compared in
 * constant time. Stored form: `sha256:<base64url digest>`.
 */

const PREFIX = 'sha256:';
export const SECRET_HASH_PATTERN = /^sha256:[A-Za-z0-9_-]{43}$/;

export function generateClientSecret(): string {
  return randomBytes(32).toString('base64url');
}

export function hashClientSecret(secret: string): string {
  return PREFIX + createHash('sha256').update(secret, 'utf8').digest('base64url');
}

/** The digest inside a stored `sha256:` hash, decoded once when clients are loaded. */
export function storedSecretDigest(storedHash: string): Buffer | undefined {
  return SECRET_HASH_PATTERN.test(storedHash) ? Buffer.from(storedHash.slice(PREFIX.length), 'base64url') : undefined;
}

const DUMMY_DIGEST = createHash('sha256').update('no such client').digest();

/** Constant-time check of `secret` against a stored digest (or a dummy one, so unknown clients cost the same). */
export function verifyClientSecret(secret: string, storedDigest: Buffer | undefined): boolean {
  const presented = sha256Bytes(secret);
  return timingSafeEqual(presented, storedDigest ?? DUMMY_DIGEST) && storedDigest !== undefined;
}

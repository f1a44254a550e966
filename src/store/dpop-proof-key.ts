import { createHash } from 'node:crypto';

/**
 * A proof's `jti` is whatever the client chose (any characters, any length): the store
 * keeps its SHA-256 digest, beside the key thumbprint that scopes it.
 */
export function dpopProofKey(jkt: string, jti: string): string {
  return `${jkt}:${createHash('sha256').update(jti).digest('base64url')}`;
}

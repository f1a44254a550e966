import { sha256Base64url } from '../shared/sha256.js';

/**
 * The names replay caches keep values under. A `jti` is whatever the sender chose (any
 * characters, any length): the store keeps its SHA-256 digest, beside what scopes it. The
 * scope is the key's hash tag on Redis (src/store/redis-keys.ts), so it must be free of braces.
 */

/** A DPoP proof: scoped by its key's thumbprint (base64url, never braces). */
export function dpopProofKey(jkt: string, jti: string): readonly [scope: string, jti: string] {
  return [jkt, sha256Base64url(jti)];
}

/** A client assertion: scoped by the digest of the client id (an id may hold braces, or be a long URL). */
export function clientAssertionKey(clientId: string, jti: string): readonly [scope: string, jti: string] {
  return [sha256Base64url(clientId), sha256Base64url(jti)];
}

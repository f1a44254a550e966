import type { KeyObject } from 'node:crypto';
import { publicKeyOf } from './compact-jws.js';

/**
 * Proof keys by thumbprint and algorithm. A client signs every proof with the same key, and
 * making a key object from a JWK costs about as much as verifying a signature, so each key is
 * made once. The RFC 7638 thumbprint covers exactly the key material, so one thumbprint is
 * one public key. Bounded: past `maxEntries` the least recently used entry goes.
 */
export class ProofKeyCache {
  private readonly keys = new Map<string, KeyObject>();

  constructor(private readonly maxEntries = 1000) {}

  /** The key of `jwk` (whose thumbprint is `jkt`) for `alg`; throws CompactJwsRefused when it is not one. */
  publicKey(jkt: string, alg: string, jwk: Record<string, unknown>): KeyObject {
    const id = `${alg}:${jkt}`;
    const cached = this.keys.get(id);
    if (cached) {
      // Most recently used last, so eviction drops the least recently used.
      this.keys.delete(id);
      this.keys.set(id, cached);
      return cached;
    }
    // A key that cannot be made is not kept: the next proof tries again (and fails again).
    const key = publicKeyOf(jwk, alg);
    this.keys.set(id, key);
    if (this.keys.size > this.maxEntries) this.keys.delete(this.keys.keys().next().value as string);
    return key;
  }
}

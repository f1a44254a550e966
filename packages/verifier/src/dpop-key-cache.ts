import { importJWK, type JWK } from 'jose';

type PublicKey = Awaited<ReturnType<typeof importJWK>>;

/**
 * Imported proof keys by thumbprint and algorithm. A client signs every proof with the
 * same key, and importing a JWK costs about as much as verifying the signature, so each
 * key is imported once. The RFC 7638 thumbprint covers exactly the key material, so one
 * thumbprint is one public key. Bounded: past `maxEntries` the oldest entry goes.
 */
export class ProofKeyCache {
  private readonly keys = new Map<string, Promise<PublicKey>>();

  constructor(private readonly maxEntries = 1000) {}

  publicKey(jkt: string, alg: string, jwk: JWK): Promise<PublicKey> {
    const id = `${alg}:${jkt}`;
    const cached = this.keys.get(id);
    if (cached) {
      // Most recently used last, so eviction drops the least recently used.
      this.keys.delete(id);
      this.keys.set(id, cached);
      return cached;
    }
    const imported = importJWK(jwk, alg);
    // A key that fails to import is not kept: the next proof tries again (and fails again).
    imported.catch(() => this.keys.delete(id));
    this.keys.set(id, imported);
    if (this.keys.size > this.maxEntries) this.keys.delete(this.keys.keys().next().value as string);
    return imported;
  }
}

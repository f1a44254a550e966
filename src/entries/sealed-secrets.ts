import { createHash, hkdfSync } from 'node:crypto';
import { openUnder, sealUnder } from '../tokens/sealed-response.js';

/**
 * The client secrets of identity providers created through the admin API: the store holds
 * them sealed (AES-256-GCM) under a key derived from ENTRIES_ENCRYPTION_KEY, bound to the
 * provider's id (the authenticated data: a value moved to another provider does not open),
 * so a dump of the store yields none. The value names its key by a short digest, so a
 * server with another key can say so instead of failing to sign users in.
 *
 *   sealed = "v1." key-id "." base64url(IV ‖ tag ‖ ciphertext)
 */
export class SealedSecrets {
  private readonly key: Buffer;
  /** A digest of the derived key (not a secret): which key sealed a value. */
  readonly keyId: string;

  constructor(secret: string) {
    this.key = Buffer.from(hkdfSync('sha256', secret, 'oauth2-token-service', 'entries-provider-secret', 32));
    this.keyId = createHash('sha256').update(this.key).digest('base64url').slice(0, 8);
  }

  seal(providerId: string, secret: string): string {
    return `v1.${this.keyId}.${sealUnder(this.key, secret, aadOf(providerId))}`;
  }

  /** The secret, or why not: sealed under another key, or not a sealed value of this provider. */
  open(providerId: string, sealed: string): { readonly secret: string } | { readonly problem: string } {
    const [version, keyId, value] = sealed.split('.');
    if (version !== 'v1' || keyId === undefined || value === undefined) return { problem: 'not a sealed client secret' };
    if (keyId !== this.keyId) return { problem: 'sealed under another ENTRIES_ENCRYPTION_KEY' };
    const secret = openUnder(this.key, value, aadOf(providerId));
    return secret === undefined ? { problem: 'the sealed client secret does not open (altered, or of another provider)' } : { secret };
  }
}

function aadOf(providerId: string): string {
  return `provider ${providerId}`;
}

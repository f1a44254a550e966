import { createCipheriv, createDecipheriv, hkdfSync } from 'node:crypto';
import { randomBuffer } from './random-id.js';

/**
 * The successor response kept for the refresh grace window, sealed (sealUnder) under a key
 * only the presented token yields: RefreshTokenSealer derives it from the refresh-token key
 * and the token's nonce; legacy refresh families (src/grants/legacy-refresh-token.ts) from
 * the token alone (sealWithToken). For those: the successor response kept
 * for the refresh grace window is encrypted (AES-256-GCM)
 * under a key derived from the presented refresh token, which the store never holds:
 * a dump of the store yields no usable token, yet a client retrying with the token it
 * has can open its own successor response.
 */

function keyFor(presentedToken: string): Buffer {
  return Buffer.from(hkdfSync('sha256', presentedToken, 'refresh-grace', 'successor-response', 32));
}

/**
 * `plaintext` sealed with AES-256-GCM under `key`: base64url(IV ‖ tag ‖ ciphertext), a random
 * IV each time; `aad`, when given, is authenticated too (what the value is bound to).
 */
export function sealUnder(key: Buffer, plaintext: string, aad?: string): string {
  const iv = randomBuffer(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  if (aad !== undefined) cipher.setAAD(Buffer.from(aad, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64url');
}

/** The plaintext of sealUnder, or undefined when `key` (and `aad`) do not open it, or it was altered. */
export function openUnder(key: Buffer, sealed: string, aad?: string): string | undefined {
  const raw = Buffer.from(sealed, 'base64url');
  if (raw.length < 29) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
    if (aad !== undefined) decipher.setAAD(Buffer.from(aad, 'utf8'));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}

export function sealWithToken(presentedToken: string, plaintext: string): string {
  return sealUnder(keyFor(presentedToken), plaintext);
}

/** The plaintext, or undefined when the token does not open it (or it was altered). */
export function openWithToken(presentedToken: string, sealed: string): string | undefined {
  return openUnder(keyFor(presentedToken), sealed);
}

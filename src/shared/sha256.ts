import * as nodeCrypto from 'node:crypto';

/**
 * SHA-256 of UTF-8 text for the token endpoint's hot path (code and refresh-token digests,
 * client secrets). node:crypto's one-shot `hash()` (Node 20.12 and later) skips creating a
 * Hash object and costs about a third of `createHash().update().digest()` on short input;
 * earlier 20.x releases get the Hash object.
 */
type OneShotHash = (algorithm: string, data: string, outputEncoding: 'base64url' | 'buffer') => string | Buffer;
const oneShot = (nodeCrypto as { hash?: OneShotHash }).hash;

export function sha256Base64url(text: string): string {
  return oneShot
    ? (oneShot('sha256', text, 'base64url') as string)
    : nodeCrypto.createHash('sha256').update(text, 'utf8').digest('base64url');
}

export function sha256Bytes(text: string): Buffer {
  return oneShot ? (oneShot('sha256', text, 'buffer') as Buffer) : nodeCrypto.createHash('sha256').update(text, 'utf8').digest();
}

import { constants, type KeyObject, sign } from 'node:crypto';
import type { SigningAlgorithm } from '../keys/algorithms.js';

/**
 * RFC 7515 compact JWS signing with node:crypto, synchronously on the calling thread:
 * one signature costs one signature (WebCrypto would add a thread-pool round trip per
 * token). Verification stays with jose.
 */

function signature(alg: SigningAlgorithm, input: Buffer, key: KeyObject): Buffer {
  switch (alg) {
    case 'ES256':
      // RFC 7518 §3.4: the signature is R || S, not DER.
      return sign('sha256', input, { key, dsaEncoding: 'ieee-p1363' });
    case 'EdDSA':
      return sign(null, input, key);
    case 'RS256':
      return sign('sha256', input, key);
    case 'PS256':
      // RFC 7518 §3.5: MGF1 with SHA-256 and a salt as long as the hash.
      return sign('sha256', input, { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 });
  }
}

export function signCompactJws(
  header: Record<string, unknown>,
  payload: Record<string, unknown>,
  alg: SigningAlgorithm,
  key: KeyObject,
): string {
  const input = `${Buffer.from(JSON.stringify(header)).toString('base64url')}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}`;
  return `${input}.${signature(alg, Buffer.from(input), key).toString('base64url')}`;
}

import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { nowSeconds } from '../src/clock.js';
import { signCompactJws } from '../src/tokens/jws.js';

/**
 * DPoP proofs (RFC 9449 §4.2) for the load phase, signed before it starts: a client signs
 * its own proofs, and doing it inside the load generator would take CPU from the server
 * being measured on the same host. One ES256 key, a fresh `jti` each, `iat` now (the
 * phase ends well inside the server's 60 s window).
 */
export function pregeneratedProofs(count: number, htu: string): string[] {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = publicKey.export({ format: 'jwk' });
  const header = { typ: 'dpop+jwt', alg: 'ES256', jwk: { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y } };
  const iat = nowSeconds();
  return Array.from({ length: count }, () => signCompactJws(header, { jti: randomUUID(), htm: 'POST', htu, iat }, 'ES256', privateKey));
}

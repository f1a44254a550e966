import { generateKeyPairSync } from 'node:crypto';
import { parseCompactJws, verifyCompactJws } from '@oauth2-token-service/verifier/compact-jws';
import { performance } from 'node:perf_hooks';
import { nowSeconds } from '../src/clock.js';
import { signCompactJws } from '../src/tokens/jws.js';
import { randomId } from '../src/tokens/random-id.js';

/**
 * (b) The raw ES256 signing rate of one core: a tight synchronous loop through the very
 * function the server signs access tokens with, on a token shaped like ours; and the raw
 * ES256 verification rate through the function the server verifies client assertions,
 * DPoP proofs and workload JWTs with (the curve arithmetic only: the JWS parsed once).
 */

const ISSUER = 'http://localhost:3000';
const HEADER = { alg: 'ES256', kid: 'x'.repeat(43), typ: 'at+jwt' };

function claims(): Record<string, unknown> {
  const iat = nowSeconds();
  return { iss: ISSUER, sub: 'bench-client', aud: ISSUER, client_id: 'bench-client', scope: 'read', iat, exp: iat + 3600, jti: randomId() };
}

function rateFor(seconds: number, signOnce: () => unknown): number {
  const start = performance.now();
  const end = start + seconds * 1000;
  let count = 0;
  while (performance.now() < end) {
    signOnce();
    count += 1;
  }
  return count / ((performance.now() - start) / 1000);
}

/** Signatures per second on this thread, after a warm-up. */
export function measureSigningRate(warmupSeconds: number, seconds: number): number {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const signOnce = () => signCompactJws(HEADER, claims(), 'ES256', privateKey);
  rateFor(warmupSeconds, signOnce);
  return rateFor(seconds, signOnce);
}

/** Verifications per second on this thread, after a warm-up, of one token signed as in measureSigningRate. */
export function measureVerificationRate(warmupSeconds: number, seconds: number): number {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jws = parseCompactJws(signCompactJws(HEADER, claims(), 'ES256', privateKey));
  const verifyOnce = () => verifyCompactJws(jws, 'ES256', publicKey);
  rateFor(warmupSeconds, verifyOnce);
  return rateFor(seconds, verifyOnce);
}

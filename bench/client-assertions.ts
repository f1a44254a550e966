import { type KeyObject, randomUUID } from 'node:crypto';
import { nowSeconds } from '../src/clock.js';
import { signCompactJws } from '../src/tokens/jws.js';

/** How long the bench's assertions live: time to sign a pool and run on it (the server takes at most 5 minutes). */
const ASSERTION_LIFETIME_SECONDS = 120;

export interface AssertionSigner {
  readonly clientId: string;
  /** The server's issuer identifier, the one audience of a client assertion (draft-ietf-oauth-rfc7523bis). */
  readonly issuer: string;
  readonly key: KeyObject;
  readonly kid: string;
}

/**
 * Client assertions (private_key_jwt, RFC 7523 §2.2 and §3) for a load phase, signed before
 * it starts: a client signs its own, and signing ES256 inside the load generator would take
 * CPU from the server measured on the same host. iss = sub = the client id, aud the issuer,
 * exp two minutes ahead, a fresh `jti` each (the server takes each once).
 */
export function pregeneratedAssertions(count: number, signer: AssertionSigner): string[] {
  return signedWithJtis(count, signer, signer.clientId, signer.clientId);
}

/**
 * A workload's JWTs (workload identity federation, RFC 7523 §2.1) for a load phase: iss the
 * workload issuer, sub the workload, aud our issuer, a fresh `jti` each, as a Kubernetes or
 * GitHub Actions token carries (the server takes each once).
 */
export function pregeneratedWorkloadJwts(count: number, signer: Omit<AssertionSigner, 'clientId'>, iss: string, sub: string): string[] {
  return signedWithJtis(count, signer, iss, sub);
}

function signedWithJtis(count: number, signer: Omit<AssertionSigner, 'clientId'>, iss: string, sub: string): string[] {
  const header = { alg: 'ES256', kid: signer.kid };
  const iat = nowSeconds();
  const claims = { iss, sub, aud: signer.issuer, iat, exp: iat + ASSERTION_LIFETIME_SECONDS };
  return Array.from({ length: count }, () => signCompactJws(header, { ...claims, jti: randomUUID() }, 'ES256', signer.key));
}

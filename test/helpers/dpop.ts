import { randomUUID } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';
import { accessTokenHash } from '@oauth2-token-service/verifier/dpop-proof';

/** A client's DPoP key pair (generated per test, never written anywhere). */
export interface DpopKey {
  readonly alg: string;
  readonly privateKey: Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];
  readonly publicJwk: JWK;
  readonly privateJwk: JWK;
  readonly jkt: string;
}

export async function dpopKey(alg = 'ES256'): Promise<DpopKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const publicJwk = await exportJWK(publicKey);
  return { alg, privateKey, publicJwk, privateJwk: await exportJWK(privateKey), jkt: await calculateJwkThumbprint(publicJwk, 'sha256') };
}

export interface ProofClaims {
  readonly htm?: string;
  readonly htu: string;
  /** Seconds since the epoch. */
  readonly iat: number;
  readonly jti?: string;
  readonly accessToken?: string;
  readonly nonce?: string;
  /** Claims to add or override (undefined removes one). */
  readonly extra?: Record<string, unknown>;
}

/** A DPoP proof (RFC 9449 §4.2), with header members overridable to forge bad ones. */
export async function dpopProof(key: DpopKey, claims: ProofClaims, header: Record<string, unknown> = {}): Promise<string> {
  const payload: Record<string, unknown> = {
    jti: claims.jti ?? randomUUID(),
    htm: claims.htm ?? 'POST',
    htu: claims.htu,
    iat: claims.iat,
    ...(claims.accessToken !== undefined ? { ath: accessTokenHash(claims.accessToken) } : {}),
    ...(claims.nonce !== undefined ? { nonce: claims.nonce } : {}),
    ...claims.extra,
  };
  for (const [name, value] of Object.entries(payload)) if (value === undefined) delete payload[name];
  return new SignJWT(payload).setProtectedHeader({ alg: key.alg, typ: 'dpop+jwt', jwk: key.publicJwk, ...header }).sign(key.privateKey);
}

/** A compact JWT with `alg: none` (no signature), as an attacker would send it. */
export function unsignedProof(jwk: JWK, claims: Record<string, unknown>): string {
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${encode({ alg: 'none', typ: 'dpop+jwt', jwk })}.${encode(claims)}.`;
}

import { randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';
import { CLIENT_ASSERTION_TYPE } from '../../src/oauth/client-assertion.js';

/** The keys of private_key_jwt clients (generated per test, never written anywhere) and the assertions they sign. */

export interface ClientKey {
  readonly alg: string;
  readonly kid: string;
  readonly privateKey: Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];
  /** The public JWK with its kid (and no alg), as a client registers it. */
  readonly publicJwk: JWK;
  readonly privateJwk: JWK;
}

export async function clientKey(alg = 'ES256', kid: string = randomUUID()): Promise<ClientKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return {
    alg,
    kid,
    privateKey,
    publicJwk: { ...(await exportJWK(publicKey)), kid },
    privateJwk: { ...(await exportJWK(privateKey)), kid },
  };
}

/** A JWK Set of the public halves. */
export const jwksOf = (...keys: readonly ClientKey[]) => ({ keys: keys.map((key) => key.publicJwk) });

export interface AssertionOptions {
  /** Seconds since the epoch (the test clock's). */
  readonly now: number;
  /** Default: the test server's issuer. */
  readonly aud?: unknown;
  /** Claims to add or override (undefined removes one). */
  readonly claims?: Record<string, unknown>;
  /** Header members to add or override (undefined removes one; kid is the key's unless given). */
  readonly header?: Record<string, unknown>;
}

/** A client assertion (RFC 7523 §3) for `clientId`, signed by `key`: 60 seconds of life, a fresh jti. */
export async function clientAssertion(key: ClientKey, clientId: string, options: AssertionOptions): Promise<string> {
  const payload: Record<string, unknown> = {
    iss: clientId,
    sub: clientId,
    aud: options.aud ?? 'https://as.example.com',
    iat: options.now,
    exp: options.now + 60,
    jti: randomUUID(),
    ...options.claims,
  };
  const header: Record<string, unknown> = { alg: key.alg, kid: key.kid, ...options.header };
  for (const record of [payload, header]) for (const [name, value] of Object.entries(record)) if (value === undefined) delete record[name];
  return new SignJWT(payload).setProtectedHeader(header as { alg: string }).sign(key.privateKey);
}

/** The form parameters of private_key_jwt (RFC 7521 §4.2). */
export const assertionParams = (assertion: string): Record<string, string> => ({
  client_assertion_type: CLIENT_ASSERTION_TYPE,
  client_assertion: assertion,
});

/** A compact JWT with `alg: none` (no signature), as an attacker would send it. */
export function unsignedAssertion(clientId: string, now: number): string {
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const claims = { iss: clientId, sub: clientId, aud: 'https://as.example.com', iat: now, exp: now + 60, jti: randomUUID() };
  return `${encode({ alg: 'none' })}.${encode(claims)}.`;
}

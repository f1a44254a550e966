import { KeyObject, type webcrypto } from 'node:crypto';
import type { JWTPayload } from 'jose';
import { decodeJsonSegment, parseCompactJws, verifyCompactJwsOnPool } from '@oauth2-token-service/verifier/compact-jws';
import { SIGNING_ALGORITHMS } from '@oauth2-token-service/verifier/algorithms';
import type { SigningKey } from '../keys/keystore.js';

/**
 * Our own RFC 9068 access tokens, verified on every token exchange, introspection, revocation
 * and userinfo request: the checks jose's jwtVerify made (typ, algorithm, key, signature, iss,
 * exp, required claims), with the signature verified by node:crypto on the calling thread
 * rather than jose's WebCrypto (the reason is in the verifier package's compact-jws.ts).
 * Pure: the key comes from the caller; anything wrong is undefined, never a reason.
 */

export interface OwnTokenRules {
  readonly issuer: string;
  /** Seconds since the epoch. */
  readonly now: number;
  /** The key we publish for this header at `now`, of its algorithm; undefined: none. */
  readonly keyFor: (header: { readonly kid?: string | undefined; readonly alg?: string | undefined }) => SigningKey | undefined;
  /** Where the keys' node:crypto objects are kept, by the keystore's key. */
  readonly keyObjects: WeakMap<SigningKey, KeyObject>;
}

/** RFC 7515 §4.1.9 as jose compares `typ`: case-insensitive, "application/" optional. */
const isAccessTokenType = (typ: unknown) => typeof typ === 'string' && typ.toLowerCase().replace(/^application\//, '') === 'at+jwt';

const REQUIRED_CLAIMS = ['iss', 'client_id', 'jti', 'exp'] as const;

function numericDateOrAbsent(value: unknown): value is number | undefined {
  return value === undefined || typeof value === 'number';
}

/** The claims of `token` when it is one of our access tokens, valid at `rules.now`; undefined otherwise. */
export async function verifiedOwnClaims(token: string, rules: OwnTokenRules): Promise<JWTPayload | undefined> {
  try {
    const jws = parseCompactJws(token);
    const { header } = jws;
    // RFC 9068 §4: "Resource servers MUST verify that the typ header value is "at+jwt" or "application/at+jwt"".
    if (!isAccessTokenType(header.typ)) return undefined;
    const alg = header.alg;
    if (typeof alg !== 'string' || !(SIGNING_ALGORITHMS as readonly string[]).includes(alg)) return undefined;
    const kid = typeof header.kid === 'string' ? header.kid : undefined;
    const key = rules.keyFor({ kid, alg });
    if (!key) return undefined;
    let keyObject = rules.keyObjects.get(key);
    if (!keyObject) rules.keyObjects.set(key, (keyObject = KeyObject.from(key as webcrypto.CryptoKey)));
    await verifyCompactJwsOnPool(jws, alg, keyObject);
    const claims = decodeJsonSegment(jws.payloadSegment) as JWTPayload;
    if (REQUIRED_CLAIMS.some((claim) => !Object.hasOwn(claims, claim)) || claims.iss !== rules.issuer) return undefined;
    const { iat, nbf, exp } = claims;
    if (!numericDateOrAbsent(iat) || !numericDateOrAbsent(nbf) || typeof exp !== 'number') return undefined;
    // RFC 7519 §4.1.4, §4.1.5: not before `nbf`, not on or after `exp`.
    if ((nbf !== undefined && nbf > rules.now) || exp <= rules.now) return undefined;
    return claims;
  } catch {
    return undefined;
  }
}

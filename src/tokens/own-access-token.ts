import { jwtVerify, type JWTPayload } from 'jose';
import { SIGNING_ALGORITHMS } from '../keys/key-file.js';
import type { Keystore } from '../keys/keystore.js';

/** Claims of one of our access tokens, as introspection and revocation read them. */
export interface OwnAccessTokenClaims extends JWTPayload {
  readonly client_id: string;
  readonly jti: string;
  readonly exp: number;
  readonly grant_id?: string;
  readonly scope?: string;
}

/**
 * Verifies that `token` is an unexpired access token we signed with a key we still
 * publish. Anything else (malformed, other issuer, bad signature, expired) is undefined.
 */
export async function verifyOwnAccessToken(
  token: string,
  keystore: Keystore,
  issuer: string,
  nowMs: number,
): Promise<OwnAccessTokenClaims | undefined> {
  const now = Math.floor(nowMs / 1000);
  try {
    const { payload } = await jwtVerify(
      token,
      (header) => {
        const key = keystore.publishedKey(header.kid, now);
        if (!key || key.alg !== header.alg) throw new Error('unknown key');
        return key.publicKey;
      },
      { issuer, typ: 'at+jwt', algorithms: [...SIGNING_ALGORITHMS], currentDate: new Date(nowMs), requiredClaims: ['exp', 'jti', 'client_id'] },
    );
    return typeof payload.client_id === 'string' ? (payload as OwnAccessTokenClaims) : undefined;
  } catch {
    return undefined;
  }
}

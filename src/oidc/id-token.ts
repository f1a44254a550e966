import { createHash } from 'node:crypto';
import { decodeProtectedHeader, type JWTPayload, jwtVerify, type JWTVerifyOptions } from 'jose';
import { SIGNING_ALGORITHMS, type SigningAlgorithm } from '@oauth2-token-service/verifier/algorithms';
import { type Clock, nowSeconds } from '../clock.js';
import { ServerError } from '../errors/index.js';
import type { Keystore, LoadedKey } from '../keys/keystore.js';
import { ID_TOKEN_DEFAULT_ALG } from '../keys/signing-algorithms.js';
import { CompactJwsSigner, type SigningThread } from '../tokens/jws.js';

/**
 * ID tokens (OpenID Connect Core 1.0 §2, §3.1.3.6): minted at the token endpoint for a
 * grant that has `openid`, signed with the client's `id_token_signed_response_alg` by the
 * key of that algorithm's chain, never by another (RS256 when the client says nothing:
 * Registration §2); and the `id_token_hint` check of the authorization and sign-out
 * endpoints. Claims requested by scope are not put in the ID token: userinfo serves them
 * (§5.4), so an ID token says who signed in, how and when, and nothing more.
 */

/** OpenID Connect Registration §2: "The default, if omitted, is RS256." (the keys folder keeps its chain) */
export const DEFAULT_ID_TOKEN_ALGORITHM: SigningAlgorithm = ID_TOKEN_DEFAULT_ALG;

export interface IdTokenRequest {
  readonly sub: string;
  readonly clientId: string;
  /** Seconds since the epoch when the user signed in (§2: `auth_time`). */
  readonly authTime: number;
  /** The `nonce` of the authentication request, echoed (§3.1.3.6); never on a refresh (§12.2). */
  readonly nonce?: string | undefined;
  /** The browser session's id (OpenID Connect Front-Channel Logout §3: `sid`). */
  readonly sid?: string | undefined;
  /** How the user signed in (RFC 8176), e.g. `["pwd"]`. */
  readonly amr?: readonly string[] | undefined;
  /** The access token issued beside it: its hash is `at_hash` (§3.1.3.6). */
  readonly accessToken: string;
  readonly algorithm?: SigningAlgorithm | undefined;
}

export interface IdTokenSettings {
  readonly issuer: string;
  /** ID_TOKEN_TTL, in seconds. */
  readonly ttlSeconds: number;
  readonly signingThread?: SigningThread;
}

/** The claims of an `id_token_hint` we issued: whom it names, for which client, in which session. */
export interface IdTokenHint {
  readonly sub: string;
  readonly audiences: readonly string[];
  readonly sid?: string;
}

/**
 * §3.1.3.6: "at_hash: Its value is the base64url encoding of the left-most half of the hash
 * of the octets of the ASCII representation of the access_token value, where the hash
 * algorithm used is the hash algorithm used in the alg Header Parameter of the ID Token's
 * JOSE Header." SHA-256 for ES256, RS256 and PS256; SHA-512 for EdDSA with Ed25519, as
 * OpenID Connect's libraries agree.
 */
export function tokenHash(token: string, alg: SigningAlgorithm): string {
  const digest = createHash(alg === 'EdDSA' ? 'sha512' : 'sha256')
    .update(token, 'ascii')
    .digest();
  return digest.subarray(0, digest.length / 2).toString('base64url');
}

export class IdTokens {
  private readonly signers = new WeakMap<LoadedKey, CompactJwsSigner>();

  constructor(
    private readonly keystore: Keystore,
    private readonly settings: IdTokenSettings,
    private readonly clock: Clock,
  ) {}

  /** The ID token of `request`; ServerError when no key of its algorithm signs now (never another algorithm). */
  async issue(request: IdTokenRequest): Promise<string> {
    const alg = request.algorithm ?? DEFAULT_ID_TOKEN_ALGORITHM;
    const iat = nowSeconds(this.clock);
    const key = this.keystore.signingKeyFor(alg, iat);
    if (!key)
      throw new ServerError(undefined, {
        cause: new Error(`no ${alg} key signs now: run "oauth2-token-service keys rotate --alg ${alg}"`),
      });
    // §2: iss, sub, aud, exp, iat are REQUIRED; auth_time when max_age or require_auth_time
    // asked for it (we always send it); azp "MAY be included even when the authorized party
    // is the same as the sole audience".
    const claims: Record<string, unknown> = {
      iss: this.settings.issuer,
      sub: request.sub,
      aud: request.clientId,
      exp: iat + this.settings.ttlSeconds,
      iat,
      auth_time: request.authTime,
      ...(request.nonce !== undefined ? { nonce: request.nonce } : {}),
      at_hash: tokenHash(request.accessToken, alg),
      azp: request.clientId,
      ...(request.sid !== undefined ? { sid: request.sid } : {}),
      ...(request.amr !== undefined && request.amr.length > 0 ? { amr: [...request.amr] } : {}),
    };
    return this.signerFor(key).sign(JSON.stringify(claims));
  }

  /**
   * The claims of `token` when it is an ID token we signed with a key we still publish,
   * expired or not (OpenID Connect Core §3.1.2.1: the hint is "previously issued [...] as a
   * hint about the End-User's current or past authenticated session"; RP-Initiated Logout §2:
   * used "even if it has expired"); undefined for anything else (altered, another issuer,
   * an access token, a key we no longer publish).
   */
  async verifyHint(token: string): Promise<IdTokenHint | undefined> {
    const payload = await this.verified(token, { clockTolerance: Number.MAX_SAFE_INTEGER });
    if (payload === undefined || typeof payload.sub !== 'string' || payload.aud === undefined) return undefined;
    const audiences = typeof payload.aud === 'string' ? [payload.aud] : payload.aud;
    return { sub: payload.sub, audiences, ...(typeof payload.sid === 'string' ? { sid: payload.sid } : {}) };
  }

  /**
   * The claims of an unexpired ID token we issued to `clientId` (§3.1.3.7: `iss`, `aud`, the
   * signature, `exp`): what a client of our own, the console, checks before it reads `nonce`.
   */
  async verifyFor(token: string, clientId: string): Promise<JWTPayload | undefined> {
    return this.verified(token, { audience: clientId, currentDate: new Date(this.clock()) });
  }

  private async verified(token: string, options: JWTVerifyOptions): Promise<JWTPayload | undefined> {
    const now = nowSeconds(this.clock);
    try {
      const header = decodeProtectedHeader(token);
      if (header.typ !== undefined && header.typ !== 'JWT') return undefined;
      const key = this.keystore.publishedKey(header.kid, now);
      if (!key || key.alg !== header.alg) return undefined;
      const verifying = { issuer: this.settings.issuer, algorithms: [...SIGNING_ALGORITHMS], ...options };
      return (await jwtVerify(token, key.publicKey, verifying)).payload;
    } catch {
      return undefined;
    }
  }

  private signerFor(key: LoadedKey): CompactJwsSigner {
    let signer = this.signers.get(key);
    if (!signer) {
      // §2: ID tokens are JWTs; `typ` JWT keeps them apart from access tokens (at+jwt, RFC 9068 §2.1).
      signer = new CompactJwsSigner(
        { alg: key.alg, kid: key.kid, typ: 'JWT' },
        key.alg,
        key.privateKey,
        this.settings.signingThread ?? 'main-thread',
      );
      this.signers.set(key, signer);
    }
    return signer;
  }
}

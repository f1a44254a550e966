import { createHash, timingSafeEqual } from 'node:crypto';
import { type CompactJws, decodeJsonSegment, jwkThumbprint, parseCompactJws, publicKeyOf, verifyCompactJwsOnPool } from './compact-jws.js';
import type { ProofKeyCache } from './dpop-key-cache.js';
import { normalizedHtu } from './dpop-htu.js';

/**
 * DPoP proof validation (RFC 9449 §4.3), pure: shared by the token endpoint and the
 * resource-server verifier, so it imports only `node:crypto` (through ./compact-jws.ts, which
 * says why not jose). No store here:
 * the caller remembers the returned `jti` (scoped by `jkt`) for `replayWindowSeconds`.
 */

/** Asymmetric JWS algorithms (RFC 7518, RFC 8037) a proof may be signed with: never `none`, never HMAC. */
export const DPOP_ASYMMETRIC_ALGORITHMS = [
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
] as const;
export type DpopAlgorithm = (typeof DPOP_ASYMMETRIC_ALGORITHMS)[number];

/** What a client may sign with unless configured otherwise (the common ones, as in oauth4webapi and node-oidc-provider). */
export const DEFAULT_DPOP_ALGORITHMS: readonly DpopAlgorithm[] = ['ES256', 'EdDSA', 'RS256', 'PS256'];

/** Members of a private (or symmetric) JWK (RFC 7518 §6.2.2, §6.3.2, §6.4; RFC 8037 §2): a proof's `jwk` carries none. */
const PRIVATE_JWK_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'] as const;

/** RFC 9449 §5 and §7.1: `invalid_dpop_proof`; §8: `use_dpop_nonce` (the proof lacks the nonce we require). */
export type DpopProofErrorCode = 'invalid_dpop_proof' | 'use_dpop_nonce';

/** Which check refused a proof, in a few words: a bounded set, fit for a metric label. */
export type DpopRefusalReason =
  | 'malformed'
  | 'typ'
  | 'alg'
  | 'jwk'
  | 'signature'
  | 'claims'
  | 'htm'
  | 'htu'
  | 'iat'
  | 'ath'
  | 'nonce'
  | 'replay'
  | 'missing'
  | 'key_mismatch';

export class DpopProofError extends Error {
  constructor(
    readonly code: DpopProofErrorCode,
    readonly description: string,
    readonly reason: DpopRefusalReason,
  ) {
    super(description);
    this.name = 'DpopProofError';
  }
}

export interface DpopRequest {
  /** The HTTP method of the request the proof came with. */
  readonly method: string;
  /** The request's absolute URI (as the client addressed it); query and fragment are ignored. */
  readonly url: string;
}

export interface DpopProofOptions {
  readonly algorithms: readonly string[];
  /** How far `iat` may lie from now, either side, in seconds (§11.1). */
  readonly windowSeconds: number;
  /** Now, in seconds since the epoch. */
  readonly now: number;
  /** At a protected resource: the access token the proof must be bound to with `ath` (§4.3 check 12). */
  readonly accessToken?: string;
  /**
   * When nonces are required: whether the proof's `nonce` is one we issued and still
   * accept. A proof without one, or with a stale one, is `use_dpop_nonce` (§8).
   */
  readonly acceptNonce?: (nonce: string) => boolean;
  /** Where imported proof keys are kept between requests (a client reuses its key); none: imported every time. */
  readonly keyCache?: ProofKeyCache;
}

export interface VerifiedDpopProof {
  /** RFC 7638 JWK SHA-256 thumbprint of the proof key (`cnf.jkt`, RFC 9449 §6.1). */
  readonly jkt: string;
  readonly jti: string;
  readonly iat: number;
  readonly alg: string;
}

const invalid = (description: string, reason: DpopRefusalReason) => new DpopProofError('invalid_dpop_proof', description, reason);

/**
 * §4.3 check 1: "there is not more than one DPoP HTTP request header field"; Node joins
 * repeated unknown headers with ", ", which no compact JWT contains.
 */
export function singleDpopHeader(value: string | readonly string[] | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.includes(',')) throw invalid('more than one DPoP header', 'malformed');
  return value;
}

/** §4.2 / §7: `ath` is "the base64url-encoded SHA-256 hash of the ASCII encoding of the associated access token's value". */
export function accessTokenHash(accessToken: string): string {
  return createHash('sha256').update(accessToken, 'ascii').digest('base64url');
}

function sameString(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function claimsOf(jws: CompactJws): Record<string, unknown> {
  try {
    return decodeJsonSegment(jws.payloadSegment);
  } catch (err) {
    throw invalid(`the DPoP proof claims are ${(err as Error).message}`, 'malformed');
  }
}

function publicJwk(jwk: unknown): Record<string, unknown> {
  if (typeof jwk !== 'object' || jwk === null || Array.isArray(jwk)) throw invalid('the jwk header must be a JSON object', 'jwk');
  // §4.3 check 7: "the jwk JOSE Header Parameter does not contain a private key".
  if (PRIVATE_JWK_MEMBERS.some((member) => member in jwk)) throw invalid('the jwk header must not contain a private key', 'jwk');
  return jwk as Record<string, unknown>;
}

/**
 * Validates one DPoP proof against the request it came with; resolves to the proof key's
 * thumbprint, or rejects with DpopProofError.
 */
export async function verifyDpopProof(proof: string, request: DpopRequest, options: DpopProofOptions): Promise<VerifiedDpopProof> {
  // §4.3 check 2: "the DPoP HTTP request header field value is a single and well-formed JWT".
  if (!/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(proof)) throw invalid('the DPoP proof is not a compact JWT', 'malformed');
  let jws: CompactJws;
  try {
    jws = parseCompactJws(proof);
  } catch {
    throw invalid('the DPoP proof header is malformed', 'malformed');
  }
  const { header } = jws;
  // §4.3 check 4: "the typ JOSE Header Parameter has the value dpop+jwt".
  if (header.typ !== 'dpop+jwt') throw invalid('the DPoP proof typ must be dpop+jwt', 'typ');
  // §4.3 check 5: "the alg JOSE Header Parameter indicates a registered asymmetric digital
  // signature algorithm [...], is not none, is supported by the application, and is acceptable per local policy".
  const alg = header.alg;
  if (typeof alg !== 'string' || !(DPOP_ASYMMETRIC_ALGORITHMS as readonly string[]).includes(alg) || !options.algorithms.includes(alg)) {
    throw invalid('the DPoP proof alg is not accepted', 'alg');
  }
  const jwk = publicJwk(header.jwk);
  let jkt: string;
  try {
    jkt = jwkThumbprint(jwk);
  } catch {
    throw invalid('the jwk header is not a public key of a known type', 'jwk');
  }

  try {
    const key = options.keyCache ? options.keyCache.publicKey(jkt, alg, jwk) : publicKeyOf(jwk, alg);
    // §4.3 check 6: "the JWT signature verifies with the public key contained in the jwk JOSE Header Parameter".
    await verifyCompactJwsOnPool(jws, alg, key);
  } catch {
    throw invalid('the DPoP proof signature does not verify with its jwk', 'signature');
  }
  const payload = claimsOf(jws);

  // §4.3 check 3: "all required claims per Section 4.2 are contained in the JWT".
  const { jti, htm, htu, iat } = payload;
  if (typeof jti !== 'string' || jti.length === 0 || jti.length > 256) throw invalid('the DPoP proof jti is missing or too long', 'claims');
  if (typeof htm !== 'string' || typeof htu !== 'string' || typeof iat !== 'number') {
    throw invalid('the DPoP proof lacks htm, htu or iat', 'claims');
  }
  // §4.3 check 8: "the htm claim matches the HTTP method of the current request".
  if (htm !== request.method.toUpperCase()) throw invalid('the DPoP proof htm does not match the request method', 'htm');
  // §4.3 check 9: "the htu claim matches the HTTP URI value for the HTTP request in which
  // the JWT was received, ignoring any query and fragment parts".
  const presentedHtu = normalizedHtu(htu);
  if (presentedHtu === undefined || presentedHtu !== normalizedHtu(request.url))
    throw invalid('the DPoP proof htu does not match the request URI', 'htu');
  // §4.3 check 11: "the creation time of the JWT [...] is within an acceptable window".
  if (Math.abs(iat - options.now) > options.windowSeconds) throw invalid('the DPoP proof iat is outside the acceptable window', 'iat');
  // `exp` is not a DPoP claim, but a proof that says it has expired is not used.
  if (payload.exp !== undefined && !(typeof payload.exp === 'number' && payload.exp > options.now))
    throw invalid('the DPoP proof has expired', 'iat');

  if (options.accessToken !== undefined) {
    // §4.3 check 12: "ensure that the value of the ath claim equals the hash of that access token".
    if (typeof payload.ath !== 'string' || !sameString(payload.ath, accessTokenHash(options.accessToken))) {
      throw invalid('the DPoP proof ath does not match the access token', 'ath');
    }
  }
  if (options.acceptNonce) {
    // §4.3 check 10: "if the server provided a nonce value to the client, the nonce claim
    // matches the server-provided nonce value"; §8: otherwise "use_dpop_nonce".
    if (typeof payload.nonce !== 'string' || !options.acceptNonce(payload.nonce)) {
      throw new DpopProofError(
        'use_dpop_nonce',
        'the authorization server requires a DPoP nonce: use the one in the DPoP-Nonce header',
        'nonce',
      );
    }
  }
  return { jkt, jti, iat, alg };
}

/**
 * How long a proof's `jti` must be remembered to refuse every replay: a proof with `iat`
 * at the far edge of the window (now + window) stays acceptable until a window after it,
 * so the whole window both sides, plus a second for rounding. Never negative, whatever the clocks say.
 */
export function replayWindowSeconds(windowSeconds: number): number {
  return 2 * Math.max(0, windowSeconds) + 1;
}

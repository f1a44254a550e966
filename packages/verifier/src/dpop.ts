import type { ProofKeyCache } from './dpop-key-cache.js';
import { DpopProofError, replayWindowSeconds, singleDpopHeader, verifyDpopProof } from './dpop-proof.js';
import { ReplayCacheUnavailableError, type TokenScheme, type VerificationErrorCode } from './errors.js';
import type { DpopReplayCache } from './replay-cache.js';

/** A token presented with `Authorization: DPoP` (RFC 9449 §7.1): its proof and the request it came with. */
export interface DpopPresentation {
  /** The `DPoP` header(s) of the request, as received. */
  readonly proof: string | readonly string[] | undefined;
  readonly method: string;
  /** The request's absolute URI as the client addressed it (scheme, host, path; the query is ignored). */
  readonly url: string;
}

export interface ProofSettings {
  readonly algorithms: readonly string[];
  readonly windowSeconds: number;
  readonly replayCache: DpopReplayCache;
  readonly keyCache: ProofKeyCache;
  /** Seconds since the epoch. */
  readonly now: number;
}

/** Why a verified token may not be used in this request; `switchTo` when it came in the wrong scheme. */
export interface BindingRefusal {
  readonly code: VerificationErrorCode;
  readonly description: string;
  readonly switchTo?: TokenScheme;
}

/**
 * Why a verified token may not be used in this request, or undefined when it may: a bound
 * token must come with the DPoP scheme and a valid proof by its key (§7), an unbound one
 * with Bearer.
 */
export async function proofBinding(
  token: string,
  claims: { readonly cnf?: { readonly jkt?: string } },
  presentation: DpopPresentation | undefined,
  settings: ProofSettings,
): Promise<BindingRefusal | undefined> {
  const boundTo = claims.cnf?.jkt;
  if (presentation === undefined) {
    // §7.2: "such a protected resource MUST reject a DPoP-bound access token received as a bearer token".
    return boundTo === undefined
      ? undefined
      : {
          code: 'invalid_token',
          description: 'the access token is DPoP-bound: send it with the DPoP scheme and a proof',
          switchTo: 'DPoP',
        };
  }
  // §7.1: the DPoP scheme is for DPoP-bound tokens; an unbound one under it would prove nothing.
  if (boundTo === undefined)
    return { code: 'invalid_token', description: 'the access token is not DPoP-bound: send it with the Bearer scheme', switchTo: 'Bearer' };
  try {
    const proof = singleDpopHeader(presentation.proof);
    if (proof === undefined) return { code: 'invalid_dpop_proof', description: 'a DPoP proof is required with the DPoP scheme' };
    const verified = await verifyDpopProof(
      proof,
      { method: presentation.method, url: presentation.url },
      // §4.3 check 12: "ensure that the value of the ath claim equals the hash of that access token".
      {
        algorithms: settings.algorithms,
        windowSeconds: settings.windowSeconds,
        now: settings.now,
        accessToken: token,
        keyCache: settings.keyCache,
      },
    );
    // §4.3 check 12: "confirm that the public key to which the access token is bound matches the public key from the DPoP proof".
    if (verified.jkt !== boundTo)
      return { code: 'invalid_token', description: "the DPoP proof key does not match the access token's cnf.jkt" };
    const first = await rememberProof(settings.replayCache, verified.jkt, verified.jti, replayWindowSeconds(settings.windowSeconds));
    if (!first) return { code: 'invalid_dpop_proof', description: 'the DPoP proof was already used' };
    return undefined;
  } catch (err) {
    if (err instanceof DpopProofError) return { code: 'invalid_dpop_proof', description: err.description };
    throw err;
  }
}

/** §11.1's check, or ReplayCacheUnavailableError when the cache cannot make it (full, or unreachable). */
async function rememberProof(cache: DpopReplayCache, jkt: string, jti: string, ttlSeconds: number): Promise<boolean> {
  try {
    return await cache.rememberProof(jkt, jti, ttlSeconds);
  } catch (err) {
    throw err instanceof ReplayCacheUnavailableError ? err : new ReplayCacheUnavailableError({ cause: err });
  }
}

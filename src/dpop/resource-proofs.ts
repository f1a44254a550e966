import { type Clock, nowSeconds } from '../clock.js';
import { InvalidDpopProof } from '../errors/index.js';
import type { DpopProofReplayCache } from '../store/types.js';
import { ProofKeyCache } from '@oauth2-token-service/verifier/dpop-key-cache';
import { DpopProofError, replayWindowSeconds, singleDpopHeader, verifyDpopProof } from '@oauth2-token-service/verifier/dpop-proof';

/**
 * DPoP proofs at a protected resource of this server itself (userinfo): RFC 9449 §7.1, "the
 * resource server MUST check that the value of the ath claim equals the hash of that access
 * token" and that the proof key is the one the token is bound to, besides the §4.3 checks;
 * each proof once (§11.1), recorded in the store like the token endpoint's.
 */
export class ResourceProofs {
  private readonly keyCache = new ProofKeyCache();

  constructor(
    private readonly replays: DpopProofReplayCache,
    private readonly settings: { readonly algorithms: readonly string[]; readonly windowSeconds: number },
    private readonly clock: Clock,
  ) {}

  /** Checks the request's proof for `accessToken`, bound to `jkt`; InvalidDpopProof otherwise. */
  async check(
    header: string | readonly string[] | undefined,
    request: { method: string; url: string },
    accessToken: string,
    jkt: string,
  ): Promise<void> {
    try {
      const proof = singleDpopHeader(header);
      if (proof === undefined) throw new DpopProofError('invalid_dpop_proof', 'a DPoP-bound token needs a DPoP proof', 'missing');
      const verified = await verifyDpopProof(proof, request, {
        algorithms: this.settings.algorithms,
        windowSeconds: this.settings.windowSeconds,
        now: nowSeconds(this.clock),
        keyCache: this.keyCache,
        accessToken,
      });
      if (verified.jkt !== jkt)
        throw new DpopProofError(
          'invalid_dpop_proof',
          'the DPoP proof is made with another key than the token is bound to',
          'key_mismatch',
        );
      const first = await this.replays.rememberDpopProof(verified.jkt, verified.jti, replayWindowSeconds(this.settings.windowSeconds));
      if (!first) throw new DpopProofError('invalid_dpop_proof', 'the DPoP proof was already used', 'replay');
    } catch (err) {
      if (err instanceof DpopProofError) throw new InvalidDpopProof(err.description);
      throw err;
    }
  }
}

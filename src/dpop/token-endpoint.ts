import { type Clock, nowSeconds } from '../clock.js';
import { InvalidDpopProof, UseDpopNonce } from '../errors/index.js';
import type { DpopProofReplayCache } from '../store/types.js';
import { ProofKeyCache } from '@oauth2-token-service/verifier/dpop-key-cache';
import type { DpopNonces } from './nonce.js';
import {
  DpopProofError,
  type DpopRefusalReason,
  replayWindowSeconds,
  singleDpopHeader,
  verifyDpopProof,
} from '@oauth2-token-service/verifier/dpop-proof';

/** What a valid DPoP proof at the token endpoint binds the issued tokens to. */
export interface DpopBinding {
  /** RFC 7638 thumbprint of the proof key: `cnf.jkt` of the access token (RFC 9449 §6.1). */
  readonly jkt: string;
}

export interface TokenEndpointProofSettings {
  /** The token endpoint's URI as clients address it (the issuer's, not the Host header's): the expected `htu`. */
  readonly tokenEndpoint: string;
  readonly algorithms: readonly string[];
  readonly windowSeconds: number;
  readonly requireNonce: boolean;
  /** Told why each proof was refused (metrics: `oauth2_dpop_proof_failures_total`). */
  readonly onRefused?: (reason: DpopRefusalReason) => void;
}

/**
 * DPoP proofs at the token endpoint (RFC 9449 §5): validated as §4.3 lists, then recorded
 * once per key and `jti` (§11.1), so a replayed proof is `invalid_dpop_proof` on every
 * instance that shares the store.
 */
export class TokenEndpointProofs {
  private readonly keyCache = new ProofKeyCache();

  constructor(
    private readonly replays: DpopProofReplayCache,
    private readonly nonces: DpopNonces,
    private readonly settings: TokenEndpointProofSettings,
    private readonly clock: Clock,
  ) {}

  /**
   * The binding of a token request's `DPoP` header: undefined without one; throws
   * InvalidDpopProof or UseDpopNonce for a proof we refuse.
   */
  async check(header: string | readonly string[] | undefined, method: string): Promise<DpopBinding | undefined> {
    const now = nowSeconds(this.clock);
    try {
      const proof = singleDpopHeader(header);
      if (proof === undefined) return undefined;
      const verified = await verifyDpopProof(
        proof,
        { method, url: this.settings.tokenEndpoint },
        {
          algorithms: this.settings.algorithms,
          windowSeconds: this.settings.windowSeconds,
          now,
          keyCache: this.keyCache,
          ...(this.settings.requireNonce ? { acceptNonce: (nonce: string) => this.nonces.accepts(nonce, now) } : {}),
        },
      );
      // §11.1: "the server MUST ensure that the same DPoP proof is not used more than once";
      // remembered for the whole window both sides of now, so the TTL is never short or negative.
      const first = await this.replays.rememberDpopProof(verified.jkt, verified.jti, replayWindowSeconds(this.settings.windowSeconds));
      if (!first) throw new DpopProofError('invalid_dpop_proof', 'the DPoP proof was already used', 'replay');
      return { jkt: verified.jkt };
    } catch (err) {
      if (!(err instanceof DpopProofError)) throw err;
      this.settings.onRefused?.(err.reason);
      if (err.code === 'use_dpop_nonce') throw new UseDpopNonce(err.description, this.nonces.current(now));
      throw new InvalidDpopProof(err.description);
    }
  }

  /** §8.2: with nonces required, every answer hands out the current one, so clients keep theirs fresh. */
  nonceToSend(): string | undefined {
    return this.settings.requireNonce ? this.nonces.current(nowSeconds(this.clock)) : undefined;
  }
}

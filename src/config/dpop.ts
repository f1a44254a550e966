import { z } from 'zod';
import { DEFAULT_DPOP_ALGORITHMS, DPOP_ASYMMETRIC_ALGORITHMS, type DpopAlgorithm } from '@oauth2-token-service/verifier/dpop-proof';
import { flag, integer } from './fields.js';

/** The variables of DPoP (RFC 9449), parsed by src/config.ts with the others (it stays the only reader of process.env). */

const dpopAlgorithms = z.string().transform((value, ctx) => {
  const algorithms = [...new Set(value.split(',').map((a) => a.trim()))];
  if (algorithms.some((a) => !(DPOP_ASYMMETRIC_ALGORITHMS as readonly string[]).includes(a))) {
    ctx.addIssue({
      code: 'custom',
      message: `DPOP_SIGNING_ALGS must be a comma-separated list of asymmetric algorithms: ${DPOP_ASYMMETRIC_ALGORITHMS.join(', ')}`,
    });
  }
  return algorithms as DpopAlgorithm[];
});

export const DPOP_FIELDS = {
  DPOP_REQUIRE_NONCE: flag('DPOP_REQUIRE_NONCE'),
  DPOP_PROOF_WINDOW: integer('DPOP_PROOF_WINDOW', 1, 600, 'seconds').default(60),
  DPOP_SIGNING_ALGS: dpopAlgorithms.default([...DEFAULT_DPOP_ALGORITHMS]),
};

type DpopVariables = z.output<z.ZodObject<typeof DPOP_FIELDS>>;

export interface DpopConfig {
  readonly dpop: {
    /** RFC 9449 §8: every proof at the token endpoint must carry a nonce we issued (`use_dpop_nonce` otherwise). */
    readonly requireNonce: boolean;
    /** How far a proof's `iat` may lie from now, either side, in seconds; also a nonce's time step. */
    readonly proofWindowSeconds: number;
    /** `dpop_signing_alg_values_supported`: the algorithms a proof may be signed with. */
    readonly algorithms: readonly DpopAlgorithm[];
  };
}

export function dpopConfig(e: DpopVariables): DpopConfig {
  return {
    dpop: Object.freeze({
      requireNonce: e.DPOP_REQUIRE_NONCE,
      proofWindowSeconds: e.DPOP_PROOF_WINDOW,
      algorithms: Object.freeze(e.DPOP_SIGNING_ALGS),
    }),
  };
}

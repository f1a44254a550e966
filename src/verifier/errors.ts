import { bearerChallenge, dpopChallenge } from './challenge.js';

/** RFC 6750 §3.1, and RFC 9449 §7.1 `invalid_dpop_proof` for a refused proof. */
export type VerificationErrorCode = 'invalid_token' | 'insufficient_scope' | 'invalid_dpop_proof';

/** The authentication scheme the token came with: the challenge answers in the same one (RFC 9449 §7.1). */
export type TokenScheme = 'Bearer' | 'DPoP';

/** A refused token, mapped to RFC 6750 §3.1 (401 invalid_token or 403 insufficient_scope) or RFC 9449 §7.1 (401 invalid_dpop_proof). */
export class TokenVerificationError extends Error {
  readonly status: 401 | 403;
  /** The `WWW-Authenticate` header value to send (RFC 6750 §3, RFC 9449 §7.1), with `resource_metadata` (RFC 9728 §5.1) when known. */
  readonly wwwAuthenticate: string;

  constructor(
    readonly code: VerificationErrorCode,
    readonly description: string,
    options: {
      realm: string;
      requiredScopes?: readonly string[];
      resourceMetadata?: string | undefined;
      /** Set when the token came with the DPoP scheme: the algorithms a proof may use. */
      dpopAlgorithms?: readonly string[] | undefined;
    },
  ) {
    super(description);
    this.name = 'TokenVerificationError';
    this.status = code === 'insufficient_scope' ? 403 : 401;
    const challenge = {
      realm: options.realm,
      error: code,
      errorDescription: description,
      ...(code === 'insufficient_scope' && options.requiredScopes ? { scope: options.requiredScopes } : {}),
      ...(options.resourceMetadata ? { resourceMetadata: options.resourceMetadata } : {}),
    };
    this.wwwAuthenticate = options.dpopAlgorithms
      ? dpopChallenge({ ...challenge, algs: options.dpopAlgorithms })
      : bearerChallenge(challenge);
  }
}

/**
 * The DPoP replay cache could not record a proof (the memory cache is full of live proofs,
 * or the shared cache did not answer). RFC 9449 §11.1 makes the check a MUST, so the
 * request cannot be admitted; nor is the token at fault: `requireScope` answers 503 with
 * `Retry-After`, and callers of `verify` should do the same.
 */
export class ReplayCacheUnavailableError extends Error {
  constructor(options?: { cause?: unknown }) {
    super('the DPoP replay cache cannot record the proof', options);
    this.name = 'ReplayCacheUnavailableError';
  }
}

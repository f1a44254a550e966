import { bearerChallenge, dpopChallenge } from './challenge.js';

/** RFC 6750 §3.1, and RFC 9449 §7.1 `invalid_dpop_proof` for a refused proof. */
export type VerificationErrorCode = 'invalid_token' | 'insufficient_scope' | 'invalid_dpop_proof';

/** The authentication scheme the token came with: the challenge answers in the same one (RFC 9449 §7.1). */
export type TokenScheme = 'Bearer' | 'DPoP';

/** The scheme a token must come with when it came with the other one. */
export type SchemeSwitch = { readonly scheme: 'Bearer' } | { readonly scheme: 'DPoP'; readonly algs: readonly string[] };

/**
 * The challenge, without error, of the scheme the token should have come with: it follows
 * the refusal (in the scheme used), so the client learns to switch. RFC 9449 §7.2: "If the
 * mechanism used to attempt authentication could be established unambiguously, then the
 * corresponding challenge SHOULD be used to deliver error information" (its Figure 18:
 * `Bearer error="invalid_token", error_description="Invalid token", DPoP algs="ES256 PS256"`).
 */
function schemeChallenge(target: SchemeSwitch, options: { realm: string; resourceMetadata?: string | undefined }): string {
  const challenge = { realm: options.realm, ...(options.resourceMetadata ? { resourceMetadata: options.resourceMetadata } : {}) };
  return target.scheme === 'DPoP' ? dpopChallenge({ ...challenge, algs: target.algs }) : bearerChallenge(challenge);
}

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
      /** Set when the token came in the wrong scheme: the scheme to use instead (with its `algs` for DPoP). */
      switchTo?: SchemeSwitch | undefined;
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
    const refusal = options.dpopAlgorithms ? dpopChallenge({ ...challenge, algs: options.dpopAlgorithms }) : bearerChallenge(challenge);
    this.wwwAuthenticate = options.switchTo ? `${refusal}, ${schemeChallenge(options.switchTo, options)}` : refusal;
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

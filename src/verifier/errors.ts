import { bearerChallenge } from './challenge.js';

export type VerificationErrorCode = 'invalid_token' | 'insufficient_scope';

/** A refused token, mapped to RFC 6750 §3.1: 401 invalid_token or 403 insufficient_scope. */
export class TokenVerificationError extends Error {
  readonly status: 401 | 403;
  /** The `WWW-Authenticate` header value to send (RFC 6750 §3), with `resource_metadata` (RFC 9728 §5.1) when known. */
  readonly wwwAuthenticate: string;

  constructor(
    readonly code: VerificationErrorCode,
    readonly description: string,
    options: { realm: string; requiredScopes?: readonly string[]; resourceMetadata?: string | undefined },
  ) {
    super(description);
    this.name = 'TokenVerificationError';
    this.status = code === 'insufficient_scope' ? 403 : 401;
    this.wwwAuthenticate = bearerChallenge({
      realm: options.realm,
      error: code,
      errorDescription: description,
      ...(code === 'insufficient_scope' && options.requiredScopes ? { scope: options.requiredScopes } : {}),
      ...(options.resourceMetadata ? { resourceMetadata: options.resourceMetadata } : {}),
    });
  }
}

import { createRemoteJWKSet, errors, type JWTPayload, jwtVerify } from 'jose';
import { SIGNING_ALGORITHMS } from '../keys/algorithms.js';

/**
 * What resource servers import (`oauth2-token-service/verifier`) to verify our access
 * tokens offline: RFC 9068 validation against the JWKS, with RFC 6750 errors ready to send.
 */

/** Only the asymmetric algorithms the authorization server signs with: never `none`, never HMAC. */
export const ACCEPTED_ALGORITHMS = SIGNING_ALGORITHMS;

export interface AccessTokenClaims extends JWTPayload {
  readonly iss: string;
  readonly sub: string;
  readonly aud: string | string[];
  readonly client_id: string;
  readonly iat: number;
  readonly exp: number;
  readonly jti: string;
  readonly scope?: string;
  readonly auth_time?: number;
}

export type VerificationErrorCode = 'invalid_token' | 'insufficient_scope';

/** A refused token, mapped to RFC 6750 §3.1: 401 invalid_token or 403 insufficient_scope. */
export class TokenVerificationError extends Error {
  readonly status: 401 | 403;
  /** The `WWW-Authenticate` header value to send (RFC 6750 §3). */
  readonly wwwAuthenticate: string;

  constructor(
    readonly code: VerificationErrorCode,
    readonly description: string,
    options: { realm: string; requiredScopes?: readonly string[] },
  ) {
    super(description);
    this.name = 'TokenVerificationError';
    this.status = code === 'insufficient_scope' ? 403 : 401;
    const scope = code === 'insufficient_scope' && options.requiredScopes?.length ? `, scope="${options.requiredScopes.join(' ')}"` : '';
    this.wwwAuthenticate = `Bearer realm="${options.realm}", error="${code}", error_description="${description}"${scope}`;
  }
}

export interface VerifierOptions {
  /** The authorization server's issuer identifier (`iss`). */
  readonly issuer: string;
  /** This resource server's identifier (`aud`). */
  readonly audience: string | string[];
  /** Defaults to `<issuer>/.well-known/jwks.json`. */
  readonly jwksUri?: string;
  /** How long fetched keys are trusted, in seconds (default 300, the server's JWKS_CACHE_TTL default). */
  readonly jwksCacheSeconds?: number;
  /** Least time between two refetches on an unknown `kid`, in seconds (default 30). */
  readonly jwksCooldownSeconds?: number;
  /** Allowed clock skew for exp, nbf and iat, in seconds (default 30). */
  readonly clockToleranceSeconds?: number;
  /** The realm of WWW-Authenticate headers (default: the audience). */
  readonly realm?: string;
  /** For tests: the current time in milliseconds. */
  readonly clock?: () => number;
}

export interface Verifier {
  /** Resolves to the token's claims, or rejects with TokenVerificationError. */
  verify(token: string, options?: { requiredScopes?: readonly string[] }): Promise<AccessTokenClaims>;
  /** The error for a request that carries no token at all (RFC 6750 §3.1: no error code). */
  readonly realm: string;
}

function describe(err: unknown): string {
  if (err instanceof errors.JWTExpired) return 'the access token expired';
  if (err instanceof errors.JWTClaimValidationFailed) return `the access token's ${err.claim} claim is not valid here`;
  if (err instanceof errors.JWKSNoMatchingKey) return 'the access token is signed with an unknown key';
  if (err instanceof errors.JOSEAlgNotAllowed) return 'the access token uses an algorithm that is not accepted';
  if (err instanceof errors.JWSSignatureVerificationFailed) return 'the access token signature is invalid';
  return 'the access token is malformed';
}

export function createVerifier(options: VerifierOptions): Verifier {
  const issuer = options.issuer.replace(/\/+$/, '');
  const realm = options.realm ?? (Array.isArray(options.audience) ? (options.audience[0] ?? issuer) : options.audience);
  const clock = options.clock ?? Date.now;
  const tolerance = options.clockToleranceSeconds ?? 30;
  const jwks = createRemoteJWKSet(new URL(options.jwksUri ?? `${issuer}/.well-known/jwks.json`), {
    cacheMaxAge: (options.jwksCacheSeconds ?? 300) * 1000,
    cooldownDuration: (options.jwksCooldownSeconds ?? 30) * 1000,
  });

  return {
    realm,
    async verify(token, verifyOptions = {}) {
      const invalid = (description: string) => new TokenVerificationError('invalid_token', description, { realm });
      let payload: JWTPayload;
      try {
        ({ payload } = await jwtVerify(token, jwks, {
          issuer,
          audience: options.audience,
          // RFC 9068 §4: "Resource servers MUST verify that the typ header value is "at+jwt""
          typ: 'at+jwt',
          algorithms: [...ACCEPTED_ALGORITHMS],
          clockTolerance: tolerance,
          currentDate: new Date(clock()),
          requiredClaims: ['iss', 'sub', 'aud', 'exp', 'iat', 'jti', 'client_id'],
        }));
      } catch (err) {
        throw invalid(describe(err));
      }
      const now = Math.floor(clock() / 1000);
      if (typeof payload.iat !== 'number' || payload.iat > now + tolerance) throw invalid('the access token was issued in the future');
      const claims = payload as AccessTokenClaims;
      const required = verifyOptions.requiredScopes ?? [];
      const granted = new Set(typeof claims.scope === 'string' ? claims.scope.split(' ') : []);
      const missing = required.filter((s) => !granted.has(s));
      if (missing.length > 0) {
        throw new TokenVerificationError('insufficient_scope', `the access token lacks the scope ${missing.join(' ')}`, {
          realm,
          requiredScopes: required,
        });
      }
      return claims;
    },
  };
}

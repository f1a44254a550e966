import { createRemoteJWKSet, errors, type JWTPayload, jwtVerify } from 'jose';
import { SIGNING_ALGORITHMS } from '../keys/algorithms.js';
import { bearerChallenge } from './challenge.js';
import { TokenVerificationError } from './errors.js';
import { protectedResourceMetadataUrl } from './protected-resource.js';

export { bearerChallenge, type BearerChallenge } from './challenge.js';
export { TokenVerificationError, type VerificationErrorCode } from './errors.js';
export * from './protected-resource.js';

/**
 * What resource servers import (`oauth2-token-service/verifier`) to verify our access
 * tokens offline: RFC 9068 validation against the JWKS, with RFC 6750 errors ready to send,
 * and the RFC 9728 metadata of the resource.
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

interface CommonVerifierOptions {
  /** The authorization server's issuer identifier (`iss`). */
  readonly issuer: string;
  /** Defaults to `<issuer>/.well-known/jwks.json`. */
  readonly jwksUri?: string;
  /** How long fetched keys are trusted, in seconds (default 300, the server's JWKS_CACHE_TTL default). */
  readonly jwksCacheSeconds?: number;
  /** Least time between two refetches on an unknown `kid`, in seconds (default 30). */
  readonly jwksCooldownSeconds?: number;
  /** Allowed clock skew for exp, nbf and iat, in seconds (default 30). */
  readonly clockToleranceSeconds?: number;
  /** The realm of WWW-Authenticate headers (default: the resource, else the first audience). */
  readonly realm?: string;
  /** For tests: the current time in milliseconds. */
  readonly clock?: () => number;
}

/**
 * `resource`: this resource server's identifier (RFC 8707, RFC 9728): the token's `aud`
 * must contain it, challenges carry `resource_metadata`. `audience`: further accepted
 * audiences (or, alone, the accepted audiences, without RFC 9728). With both, `aud` must
 * contain the resource or one of the audiences.
 */
export type VerifierOptions = CommonVerifierOptions &
  (
    | { readonly resource: string; readonly audience?: string | readonly string[] }
    | { readonly audience: string | readonly string[]; readonly resource?: undefined }
  );

export interface Verifier {
  /** Resolves to the token's claims, or rejects with TokenVerificationError. */
  verify(token: string, options?: { requiredScopes?: readonly string[] }): Promise<AccessTokenClaims>;
  /** The challenge for a request that carries no token at all (RFC 6750 §3.1: no error code). */
  challenge(options?: { requiredScopes?: readonly string[] }): string;
  readonly realm: string;
  /** The issuer, as compared with `iss` (without trailing slash). */
  readonly issuer: string;
  /** The resource identifier tokens must be issued for; undefined for a verifier made with `audience` alone. */
  readonly resource: string | undefined;
  /** Where the RFC 9728 metadata of `resource` is published (§3.1); undefined without `resource`. */
  readonly resourceMetadataUrl: string | undefined;
}

function describe(err: unknown): string {
  if (err instanceof errors.JWTExpired) return 'the access token expired';
  if (err instanceof errors.JWTClaimValidationFailed) return `the access token's ${err.claim} claim is not valid here`;
  if (err instanceof errors.JWKSNoMatchingKey) return 'the access token is signed with an unknown key';
  if (err instanceof errors.JOSEAlgNotAllowed) return 'the access token uses an algorithm that is not accepted';
  if (err instanceof errors.JWSSignatureVerificationFailed) return 'the access token signature is invalid';
  return 'the access token is malformed';
}

function acceptedAudiences(options: VerifierOptions): string[] {
  const audiences = [
    ...(options.resource !== undefined ? [options.resource] : []),
    ...(typeof options.audience === 'string' ? [options.audience] : (options.audience ?? [])),
  ];
  if (audiences.length === 0) throw new TypeError('createVerifier needs the resource (or an audience) its tokens are issued for');
  return audiences;
}

export function createVerifier(options: VerifierOptions): Verifier {
  const issuer = options.issuer.replace(/\/+$/, '');
  const resource = options.resource;
  const resourceMetadata = resource !== undefined ? protectedResourceMetadataUrl(resource) : undefined;
  const audiences = acceptedAudiences(options);
  const realm = options.realm ?? (audiences[0] as string);
  const clock = options.clock ?? Date.now;
  const tolerance = options.clockToleranceSeconds ?? 30;
  const jwks = createRemoteJWKSet(new URL(options.jwksUri ?? `${issuer}/.well-known/jwks.json`), {
    cacheMaxAge: (options.jwksCacheSeconds ?? 300) * 1000,
    cooldownDuration: (options.jwksCooldownSeconds ?? 30) * 1000,
  });

  return {
    realm,
    issuer,
    resource,
    resourceMetadataUrl: resourceMetadata,
    challenge: (challengeOptions = {}) =>
      bearerChallenge({
        realm,
        ...(challengeOptions.requiredScopes ? { scope: challengeOptions.requiredScopes } : {}),
        ...(resourceMetadata ? { resourceMetadata } : {}),
      }),
    async verify(token, verifyOptions = {}) {
      const invalid = (description: string) => new TokenVerificationError('invalid_token', description, { realm, resourceMetadata });
      let payload: JWTPayload;
      try {
        ({ payload } = await jwtVerify(token, jwks, {
          issuer,
          // RFC 9068 §4: "The resource server MUST validate that the aud claim contains a resource
          // indicator value corresponding to an identifier the resource server expects for itself."
          audience: audiences,
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
          resourceMetadata,
        });
      }
      return claims;
    },
  };
}

import { createRemoteJWKSet, errors, type JWTPayload, jwtVerify, type JWTVerifyGetKey } from 'jose';
import { SIGNING_ALGORITHMS } from './algorithms.js';
import { ProofKeyCache } from './dpop-key-cache.js';
import { DEFAULT_DPOP_ALGORITHMS } from './dpop-proof.js';
import { bearerChallenge, dpopChallenge } from './challenge.js';
import { type DpopPresentation, proofBinding } from './dpop.js';
import { TokenVerificationError } from './errors.js';
import { protectedResourceMetadataUrl } from './protected-resource.js';
import { type DpopReplayCache, memoryReplayCache } from './replay-cache.js';

export { bearerChallenge, type BearerChallenge, dpopChallenge, type DpopChallenge } from './challenge.js';
export type { DpopPresentation } from './dpop.js';
export { ReplayCacheUnavailableError, TokenVerificationError, type TokenScheme, type VerificationErrorCode } from './errors.js';
export * from './protected-resource.js';
export { type DpopReplayCache, memoryReplayCache, type RedisSetNx, redisReplayCache } from './replay-cache.js';

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
  /** RFC 9449 §6.1: a DPoP-bound token's key thumbprint. */
  readonly cnf?: { readonly jkt?: string };
  /**
   * RFC 8693 §4.1: a token from a token exchange names who acts for `sub`: `act.sub` is the
   * client that exchanged it, and an `act` inside it the actor before (the current actor is
   * the outermost; earlier ones are for information only).
   */
  readonly act?: ActorClaim;
  /**
   * A workload's token (workload identity federation): the trust whose JWT it was issued for;
   * `sub` is then the workload's and `client_id` `workload:<trust>`. Absent from users' tokens.
   */
  readonly iss_trust?: string;
}

/** RFC 8693 §4.1 "act" (actor): the acting party's `sub`, and the party that acted before it, if any. */
export interface ActorClaim {
  readonly sub: string;
  readonly act?: ActorClaim;
}

/** DPoP (RFC 9449) at this resource server. Bound tokens are always refused as Bearer, with or without these options. */
export interface VerifierDpopOptions {
  /** The algorithms a proof may be signed with (default ES256, EdDSA, RS256, PS256); sent as `algs` in challenges. */
  readonly algorithms?: readonly string[];
  /** How far a proof's `iat` may lie from now, either side, in seconds (default 60). */
  readonly proofWindowSeconds?: number;
  /** Where accepted proofs are remembered (default: in this process's memory; `redisReplayCache` for several instances). */
  readonly replayCache?: DpopReplayCache;
}

interface CommonVerifierOptions {
  /** The authorization server's issuer identifier (`iss`). */
  readonly issuer: string;
  /** Defaults to `<issuer>/.well-known/jwks.json`. */
  readonly jwksUri?: string;
  /**
   * Instead of fetching `jwksUri`: the key for a token's protected header, as jose's
   * `jwtVerify` takes it. For a verifier inside the authorization server itself (its admin
   * API), which has the keys at hand.
   */
  readonly getKey?: JWTVerifyGetKey;
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
  /** Set to advertise DPoP in the challenge of a request without a token, and to tune proof checks. */
  readonly dpop?: VerifierDpopOptions;
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
  /**
   * Resolves to the token's claims, or rejects with TokenVerificationError. A token sent with
   * `Authorization: DPoP` comes with `dpop` (its proof and the request), one sent as Bearer without.
   */
  verify(token: string, options?: { requiredScopes?: readonly string[]; dpop?: DpopPresentation }): Promise<AccessTokenClaims>;
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
  const dpop = {
    algorithms: options.dpop?.algorithms ?? DEFAULT_DPOP_ALGORITHMS,
    windowSeconds: options.dpop?.proofWindowSeconds ?? 60,
    replayCache: options.dpop?.replayCache ?? memoryReplayCache({ clock }),
    keyCache: new ProofKeyCache(),
  };
  const jwks =
    options.getKey ??
    createRemoteJWKSet(new URL(options.jwksUri ?? `${issuer}/.well-known/jwks.json`), {
      cacheMaxAge: (options.jwksCacheSeconds ?? 300) * 1000,
      cooldownDuration: (options.jwksCooldownSeconds ?? 30) * 1000,
    });

  return {
    realm,
    issuer,
    resource,
    resourceMetadataUrl: resourceMetadata,
    challenge: (challengeOptions = {}) => {
      const challenge = {
        realm,
        ...(challengeOptions.requiredScopes ? { scope: challengeOptions.requiredScopes } : {}),
        ...(resourceMetadata ? { resourceMetadata } : {}),
      };
      // RFC 9449 §7.1: a resource accepting both schemes may offer both challenges.
      return options.dpop
        ? `${bearerChallenge(challenge)}, ${dpopChallenge({ ...challenge, algs: dpop.algorithms })}`
        : bearerChallenge(challenge);
    },
    async verify(token, verifyOptions = {}) {
      // Errors answer in the scheme the token came with (RFC 9449 §7.1).
      const dpopAlgorithms = verifyOptions.dpop ? dpop.algorithms : undefined;
      const invalid = (description: string) =>
        new TokenVerificationError('invalid_token', description, { realm, resourceMetadata, dpopAlgorithms });
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
      const binding = await proofBinding(token, claims, verifyOptions.dpop, { ...dpop, now });
      if (binding) {
        const switchTo =
          binding.switchTo === 'DPoP'
            ? { scheme: 'DPoP' as const, algs: dpop.algorithms }
            : binding.switchTo && { scheme: binding.switchTo };
        throw new TokenVerificationError(binding.code, binding.description, { realm, resourceMetadata, dpopAlgorithms, switchTo });
      }
      const required = verifyOptions.requiredScopes ?? [];
      const granted = new Set(typeof claims.scope === 'string' ? claims.scope.split(' ') : []);
      const missing = required.filter((s) => !granted.has(s));
      if (missing.length > 0) {
        throw new TokenVerificationError('insufficient_scope', `the access token lacks the scope ${missing.join(' ')}`, {
          realm,
          requiredScopes: required,
          resourceMetadata,
          dpopAlgorithms,
        });
      }
      return claims;
    },
  };
}

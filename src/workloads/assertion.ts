import type { JWTPayload, ProtectedHeaderParameters } from 'jose';
import { type CompactJws, decodeJsonSegment, parseCompactJws } from '@oauth2-token-service/verifier/compact-jws';
import type { WorkloadRefusal } from '../events/workload-refusals.js';
import type { WorkloadTrust } from './trusts.js';

/**
 * The rules of a workload's JWT that need no key (RFC 7523 §3, draft-ietf-oauth-rfc7523bis,
 * MCP Workload Identity Federation "JWT Validation"): its type, algorithm, audience, times,
 * subject and `jti`, and those of RFC 7519 once the signature verified. Pure. The key and the
 * signature are verifier.ts's.
 */

/** Asymmetric algorithms only: an issuer signs with keys it publishes (never `none`, never an HMAC). */
export const WORKLOAD_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'];

/** How far apart our clock and the issuer's may be. */
export const WORKLOAD_CLOCK_SKEW_SECONDS = 60;

/** The furthest `exp` may be ahead (a Kubernetes token lives an hour); it bounds the replay cache too. */
export const WORKLOAD_MAX_LIFETIME_SECONDS = 86_400;

/** The `typ` an ID-JAG carries (draft-ietf-oauth-identity-assertion-authz-grant §3.1): never a workload's. */
const ID_JAG_TYPE = 'oauth-id-jag+jwt';

const MAX_SUB_LENGTH = 1000;
const MAX_JTI_LENGTH = 512;

/** Why a workload's JWT was refused: `reason` is the fixed code (audit log, metrics), the message says more (debug log). */
export class WorkloadRefused extends Error {
  constructor(
    readonly reason: WorkloadRefusal,
    message: string,
    options: { cause?: unknown; trust?: string | undefined; sub?: string | undefined } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'WorkloadRefused';
    this.trust = options.trust;
    this.sub = options.sub;
  }

  /** The trust whose issuer the JWT named, when one does. */
  readonly trust: string | undefined;
  /** The workload's sub, once its signature was verified. */
  readonly sub: string | undefined;
}

/** `typ` as RFC 7515 §4.1.9 lets it be written: without "application/", in any case. */
function normalizedType(typ: unknown): string | undefined {
  return typeof typ === 'string' ? typ.toLowerCase().replace(/^application\//, '') : undefined;
}

/** What an assertion says before anything is verified: enough to dispatch it, never to trust it. */
export interface PeekedAssertion {
  readonly header: ProtectedHeaderParameters;
  readonly claims: JWTPayload;
  /** The JWS taken apart, for verifying its signature without decoding it again. */
  readonly jws: CompactJws;
}

/**
 * The last assertion peeked and what it said. A workload's request is peeked twice, to route
 * it (grants/workload.ts) and to verify it (verifier.ts), usually one right after the other:
 * the second decodes nothing. Only the very same text gets the same answer. Its header, claims
 * and JWS are frozen (their own members; nothing here writes to the values within), so that no
 * reader can change what the next one sees.
 */
let lastPeeked: { readonly assertion: string; readonly peeked: PeekedAssertion | undefined } | undefined;

/** The header and claims of a JWS compact JWT; undefined when it is not one. */
export function peekAssertion(assertion: string): PeekedAssertion | undefined {
  if (lastPeeked?.assertion === assertion) return lastPeeked.peeked;
  let peeked: PeekedAssertion | undefined;
  try {
    const jws = parseCompactJws(assertion);
    const claims = Object.freeze(decodeJsonSegment(jws.payloadSegment) as JWTPayload);
    peeked = Object.freeze({ header: Object.freeze(jws.header) as ProtectedHeaderParameters, claims, jws: Object.freeze(jws) });
  } catch {
    peeked = undefined;
  }
  lastPeeked = { assertion, peeked };
  return peeked;
}

/** Whether the assertion is typed as an ID-JAG: that one needs a client (src/grants/jwt-bearer.ts). */
export function isIdJag(peeked: PeekedAssertion | undefined): boolean {
  return normalizedType(peeked?.header.typ) === ID_JAG_TYPE;
}

/**
 * RFC 8725 §3.11: a JWT explicitly typed for another purpose (an access token, a DPoP proof,
 * an ID-JAG, a client assertion) is not a workload's identity. Untyped, "JWT" and "JOSE"
 * (SPIFFE JWT-SVID §2) are taken.
 */
export function checkType(header: ProtectedHeaderParameters): void {
  const typ = normalizedType(header.typ);
  if (typ !== undefined && typ !== 'jwt' && typ !== 'jose')
    throw new WorkloadRefused('wrong_type', `typ ${String(header.typ)} is not a workload JWT`);
}

export function checkAlgorithm(header: ProtectedHeaderParameters, trust: WorkloadTrust): void {
  if (typeof header.alg !== 'string' || !WORKLOAD_ALGORITHMS.includes(header.alg))
    throw new WorkloadRefused('algorithm_not_allowed', `alg ${String(header.alg)} is not accepted`, { trust: trust.id });
}

/** The audiences a JWT of `trust` may name: the trust's own, or else our issuer identifier and token endpoint URL. */
export function acceptedAudiences(trust: WorkloadTrust, ours: { readonly issuer: string; readonly tokenEndpoint: string }): string[] {
  return trust.audience !== undefined ? [trust.audience] : [ours.issuer, ours.tokenEndpoint];
}

export interface WorkloadClaimChecks {
  readonly trust: WorkloadTrust;
  readonly accepted: readonly string[];
  readonly nowSeconds: number;
}

export interface CheckedClaims {
  readonly sub: string;
  readonly jti: string | undefined;
  /** How long the jti must be remembered: the JWT's remaining life and the skew. */
  readonly replayWindowSeconds: number;
}

function numericDate(claims: Readonly<JWTPayload>, name: 'exp' | 'nbf' | 'iat', trust: WorkloadTrust): number | undefined {
  const value = claims[name];
  if (value !== undefined && typeof value !== 'number')
    throw new WorkloadRefused('malformed', `${name}: "${name}" claim must be a number`, { trust: trust.id });
  return value;
}

/**
 * RFC 7523 §3, the claims jose's jwtVerify checked before (same order, same refusals), on claims
 * whose signature verified: item 1, `iss` exactly the trust's issuer; item 4, "The JWT MUST
 * contain an "exp" (expiration time) claim [...] The authorization server MUST reject any JWT
 * with an expiration time that has passed, subject to allowable clock skew"; item 5, `nbf`;
 * NumericDates that are numbers.
 */
export function checkRegisteredClaims(claims: Readonly<JWTPayload>, trust: WorkloadTrust, now: number): void {
  const malformed = (message: string) => new WorkloadRefused('malformed', message, { trust: trust.id });
  if (!Object.hasOwn(claims, 'iss')) throw malformed('iss: missing required "iss" claim');
  if (!Object.hasOwn(claims, 'exp')) throw malformed('exp: missing required "exp" claim');
  if (claims.iss !== trust.issuer) throw malformed('iss: unexpected "iss" claim value');
  numericDate(claims, 'iat', trust);
  const nbf = numericDate(claims, 'nbf', trust);
  if (nbf !== undefined && nbf > now + WORKLOAD_CLOCK_SKEW_SECONDS)
    throw new WorkloadRefused('not_yet_valid', 'nbf is in the future', { trust: trust.id });
  const exp = numericDate(claims, 'exp', trust) as number;
  if (exp <= now - WORKLOAD_CLOCK_SKEW_SECONDS) throw new WorkloadRefused('expired', 'the JWT has expired', { trust: trust.id });
}

/** The checks left once checkRegisteredClaims passed: audience, lifetime bound, `iat`, subject and `jti`. */
export function checkWorkloadClaims(claims: Readonly<JWTPayload>, checks: WorkloadClaimChecks): CheckedClaims {
  const { trust, accepted, nowSeconds: now } = checks;
  const { sub, jti, aud, iat } = claims;
  if (typeof sub !== 'string' || sub === '' || sub.length > MAX_SUB_LENGTH)
    throw new WorkloadRefused('malformed', 'sub is missing or malformed', { trust: trust.id });
  const refuse = (reason: WorkloadRefusal, message: string) => new WorkloadRefused(reason, message, { trust: trust.id, sub });
  const named = typeof aud === 'string' ? [aud] : Array.isArray(aud) ? aud : [];
  // RFC 7523 §3 item 3: "The JWT MUST contain an "aud" (audience) claim containing a value that
  // identifies the authorization server as an intended audience"; draft-ietf-oauth-rfc7523bis
  // closes the ambiguity of arrays: one naming anyone else could be replayed there.
  if (named.length === 0 || !named.every((value) => accepted.includes(value)))
    throw refuse('wrong_audience', 'aud names someone other than this authorization server');
  const exp = claims.exp as number;
  if (exp > now + WORKLOAD_MAX_LIFETIME_SECONDS + WORKLOAD_CLOCK_SKEW_SECONDS) throw refuse('lifetime_too_long', 'exp is too far ahead');
  if (typeof iat === 'number' && iat > now + WORKLOAD_CLOCK_SKEW_SECONDS) throw refuse('not_yet_valid', 'iat is in the future');
  if (jti !== undefined && (typeof jti !== 'string' || jti === '' || jti.length > MAX_JTI_LENGTH))
    throw refuse('malformed', 'jti is malformed');
  if (jti === undefined && trust.require_jti) throw refuse('jti_required', 'the trust requires a jti');
  return { sub, jti, replayWindowSeconds: Math.max(1, Math.ceil(exp + WORKLOAD_CLOCK_SKEW_SECONDS - now)) };
}

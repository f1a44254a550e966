import { decodeJwt, type JWTPayload, type ProtectedHeaderParameters } from 'jose';
import { type CompactJws, decodeJsonSegment, parseCompactJws } from '@oauth2-token-service/verifier/compact-jws';
import type { ClientAuthenticationFailure } from '../events/types.js';

/**
 * The rules of a client assertion (`private_key_jwt`: RFC 7523 §2.2 and §3, OpenID Connect
 * Core §9), on its decoded header and claims: pure, no key and no store. The signature and
 * the single use of `jti` are checked by src/clients/client-assertions.ts.
 */

/** RFC 7523 §2.2: "The value of the "client_assertion_type" is "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"." */
export const CLIENT_ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

/**
 * Asymmetric algorithms only: no `none`, and no HMAC (client_secret_jwt is not offered: it
 * would need the secret in clear on our side, where only its digest is kept). Ed25519 is
 * EdDSA with that curve under its fully-specified name (RFC 9864), which oauth4webapi and
 * openid-client sign with.
 */
export const CLIENT_ASSERTION_ALGORITHMS = ['ES256', 'EdDSA', 'Ed25519', 'RS256', 'PS256'] as const;
export type ClientAssertionAlgorithm = (typeof CLIENT_ASSERTION_ALGORITHMS)[number];

/** How far apart our clock and a client's may be. */
export const ASSERTION_CLOCK_SKEW_SECONDS = 30;

/**
 * The longest an assertion may live: its `exp` at most this far ahead, its `iat` at most this
 * far behind (both give or take the skew). Libraries sign for a minute or less; a long-lived
 * assertion is a bearer credential, and the bound also bounds the replay cache.
 */
export const MAX_ASSERTION_LIFETIME_SECONDS = 300;

/** A `jti` longer than this is refused (the store keeps its digest; any real one is far shorter). */
const MAX_JTI_LENGTH = 512;

/**
 * The `typ` values accepted (RFC 7515 §4.1.9: compared case-insensitively, "application/" may be
 * left out), each with whether it is draft-ietf-oauth-rfc7523bis's explicit type.
 */
const ACCEPTED_TYPES = new Map([
  ['jwt', false],
  ['application/jwt', false],
  ['client-authentication+jwt', true],
  ['application/client-authentication+jwt', true],
]);

/**
 * Why an assertion was refused: `failure`, the check (a fixed code, audited), and the message
 * (logged at debug); never sent (RFC 7521 §4.2.1 answers every invalid assertion with
 * invalid_client, and we give one description for every failed authentication).
 */
export class ClientAssertionRefused extends Error {
  constructor(
    readonly failure: ClientAuthenticationFailure,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'ClientAssertionRefused';
  }
}

export interface DecodedAssertion {
  readonly header: ProtectedHeaderParameters;
  readonly claims: JWTPayload;
  /** The JWS taken apart, for verifying its signature without decoding it again. */
  readonly jws: CompactJws;
}

/** The header and claims of a JWS compact JWT, unverified; ClientAssertionRefused when it is not one. */
export function decodeClientAssertion(assertion: string): DecodedAssertion {
  try {
    const jws = parseCompactJws(assertion);
    return { header: jws.header as ProtectedHeaderParameters, claims: decodeJsonSegment(jws.payloadSegment) as JWTPayload, jws };
  } catch (err) {
    throw new ClientAssertionRefused('malformed', 'not a signed JWT (JWS compact serialization)', { cause: err });
  }
}

/**
 * RFC 7521 §4.2: client_id "is unnecessary for client assertion authentication because the
 * client is identified by the subject of the assertion". The `sub` the assertion names,
 * unverified: only which client's keys to verify it with; undefined when there is none.
 */
export function assertionSubject(assertion: string): string | undefined {
  try {
    const { sub } = decodeJwt(assertion);
    return typeof sub === 'string' && sub !== '' ? sub : undefined;
  } catch {
    return undefined;
  }
}

/** Checks `alg`: one of `algorithms`. */
export function checkAssertionAlgorithm(header: ProtectedHeaderParameters, algorithms: readonly string[]): ClientAssertionAlgorithm {
  const { alg } = header;
  if (typeof alg !== 'string' || !algorithms.includes(alg))
    throw new ClientAssertionRefused('algorithm_not_allowed', `alg ${String(alg)} is not accepted`);
  return alg as ClientAssertionAlgorithm;
}

/**
 * Checks `typ`; true when it is `client-authentication+jwt`. draft-ietf-oauth-rfc7523bis §4:
 * "it is NOT RECOMMENDED for servers to reject JWTs that do not have explicit types", so none
 * and plain JWT pass; a token of another explicit type (an access token, a DPoP proof, an
 * ID-JAG) is not a client assertion, whatever its claims say (RFC 8725 §3.11).
 */
export function isExplicitlyTyped(header: ProtectedHeaderParameters): boolean {
  const { typ } = header;
  if (typ === undefined) return false;
  const explicit = typeof typ === 'string' ? ACCEPTED_TYPES.get(typ.toLowerCase()) : undefined;
  if (explicit === undefined) throw new ClientAssertionRefused('wrong_type', `typ ${String(typ)} is not a client assertion's`);
  return explicit;
}

/** The `aud` an assertion may carry (see checkAudience). */
export interface AudienceRule {
  /** Our issuer identifier: always accepted. */
  readonly issuer: string;
  /** Our token endpoint URL, accepted too (RFC 7523 as published); undefined: the issuer identifier alone. */
  readonly tokenEndpoint: string | undefined;
}

export interface AssertionExpectations {
  readonly clientId: string;
  readonly audience: AudienceRule;
  readonly nowSeconds: number;
}

const isOurs = (value: unknown, rule: AudienceRule) =>
  value === rule.issuer || (rule.tokenEndpoint !== undefined && value === rule.tokenEndpoint);

/**
 * draft-ietf-oauth-rfc7523bis §4 (RFC 7523 §3 item 3) for client authentication: "The aud
 * claim value MUST indicate only the issuer identifier of the intended authorization server
 * as the audience of the JWT" and "The authorization server MUST reject any JWT that does not
 * contain its issuer identifier as its sole audience value": a string, or an array of that one
 * value (draft -03). An array naming anyone else is refused, even with us in it: it could be
 * replayed at every server it names, each remembering its jti only for itself. Under a rule
 * with the token endpoint URL (assertions of clients written before the draft), an array may
 * name both of our identifiers (openid-client 5 sends [issuer, token_endpoint]) and nobody
 * else. Compared as simple strings (RFC 3986 §6.2.1); no allocation.
 */
function checkAudience(aud: unknown, rule: AudienceRule): void {
  if (!Array.isArray(aud)) {
    if (isOurs(aud, rule)) return;
    throw new ClientAssertionRefused(
      'wrong_audience',
      rule.tokenEndpoint === undefined
        ? 'aud is not our issuer identifier'
        : 'aud is neither our issuer identifier nor our token endpoint URL',
    );
  }
  if (rule.tokenEndpoint === undefined) {
    if (aud.length === 1 && aud[0] === rule.issuer) return;
    throw new ClientAssertionRefused('wrong_audience', 'aud is not our issuer identifier alone');
  }
  let ours = aud.length > 0;
  for (let i = 0; ours && i < aud.length; i++) ours = isOurs(aud[i], rule);
  if (!ours) throw new ClientAssertionRefused('wrong_audience', 'aud names others than our issuer identifier and token endpoint URL');
}

function numericDate(claims: JWTPayload, name: 'exp' | 'iat' | 'nbf'): number | undefined {
  const value = claims[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new ClientAssertionRefused('malformed', `${name} is not a NumericDate`);
  return value;
}

/** Checks the lifetime claims; returns how long, from now, the assertion could still be accepted. */
function checkLifetime(claims: JWTPayload, now: number): number {
  const skew = ASSERTION_CLOCK_SKEW_SECONDS;
  // RFC 7523 §3 item 4: "The JWT MUST contain an "exp" (expiration time) claim that limits the
  // time window during which the JWT can be used. The authorization server MUST reject any
  // JWT with an expiration time that has passed, subject to allowable clock skew".
  const exp = numericDate(claims, 'exp');
  if (exp === undefined) throw new ClientAssertionRefused('malformed', 'exp is missing');
  if (exp <= now - skew) throw new ClientAssertionRefused('expired', 'expired');
  if (exp > now + MAX_ASSERTION_LIFETIME_SECONDS + skew)
    throw new ClientAssertionRefused('lifetime_too_long', 'exp is too far in the future');
  // §3 item 5: "The authorization server MUST reject a JWT that is not valid at the current time" (nbf).
  const nbf = numericDate(claims, 'nbf');
  if (nbf !== undefined && nbf > now + skew) throw new ClientAssertionRefused('not_yet_valid', 'not valid yet (nbf)');
  // §3 item 6: "The authorization server MAY reject JWTs with an "iat" claim value that is
  // unreasonably far in the past."
  const iat = numericDate(claims, 'iat');
  if (iat !== undefined && iat > now + skew) throw new ClientAssertionRefused('not_yet_valid', 'issued in the future (iat)');
  if (iat !== undefined && iat < now - MAX_ASSERTION_LIFETIME_SECONDS - skew)
    throw new ClientAssertionRefused('lifetime_too_long', 'issued too long ago (iat)');
  // Remembered until it would be refused as expired: its remaining life plus the skew.
  return Math.max(1, Math.ceil(exp + skew - now));
}

/**
 * Checks the claims of an assertion for `expected.clientId`; returns its `jti` and how long
 * it must be remembered to be refused when replayed.
 */
export function checkAssertionClaims(claims: JWTPayload, expected: AssertionExpectations): { jti: string; replayWindowSeconds: number } {
  // RFC 7523 §3 items 1 and 2: "For client authentication, the subject MUST be the
  // "client_id" of the OAuth client", and OpenID Connect Core §9: iss "MUST contain the client_id".
  if (claims.iss !== expected.clientId) throw new ClientAssertionRefused('wrong_issuer', 'iss is not the client_id');
  if (claims.sub !== expected.clientId) throw new ClientAssertionRefused('wrong_subject', 'sub is not the client_id');
  checkAudience(claims.aud, expected.audience);
  const replayWindowSeconds = checkLifetime(claims, expected.nowSeconds);
  // OpenID Connect Core §9: "jti REQUIRED. JWT ID. A unique identifier for the token, which can
  // be used to prevent reuse of the token. These tokens MUST only be used once".
  const { jti } = claims;
  if (typeof jti !== 'string' || jti === '' || jti.length > MAX_JTI_LENGTH)
    throw new ClientAssertionRefused('malformed', 'jti is missing or malformed');
  return { jti, replayWindowSeconds };
}

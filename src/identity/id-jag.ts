import { decodeJwt, decodeProtectedHeader, errors, type JWTPayload, jwtVerify, type JWTVerifyGetKey } from 'jose';
import { type Clock, nowSeconds } from '../clock.js';
import { parseScope } from '../oauth/scope.js';
import type { ClientAssertionReplayCache } from '../store/types.js';

/**
 * Identity Assertion JWT Authorization Grants (ID-JAG, draft-ietf-oauth-identity-assertion-
 * authz-grant), as the resource application's authorization server checks them: a JWT an
 * enterprise identity provider signed, saying that one of its users may use one client at
 * this authorization server. Which providers are trusted, and their keys, come from the
 * caller (IDENTITY_PROVIDERS_FILE entries with `id_jag: true`); here the rules of the
 * assertion and the single use of its `jti`. Every refusal is an IdJagRefused with a short
 * code for the audit log; the client is told only invalid_grant (RFC 7521 §4.1.1).
 */

/** The `typ` header the draft registers: "oauth-id-jag+jwt". */
export const ID_JAG_TYPE = 'oauth-id-jag+jwt';

/** Asymmetric algorithms only: an identity provider signs with its published keys (no `none`, no HMAC). */
export const ID_JAG_ALGORITHMS = ['RS256', 'PS256', 'ES256', 'ES384', 'EdDSA', 'Ed25519'] as const;

/** How far apart our clock and the identity provider's may be. */
export const ID_JAG_CLOCK_SKEW_SECONDS = 30;

/** The longest an ID-JAG may live from its `iat`: the draft's are short-lived (minutes); this bounds the replay cache too. */
export const ID_JAG_MAX_LIFETIME_SECONDS = 3600;

const MAX_JTI_LENGTH = 512;

/** Why an ID-JAG was refused: `reason` is a fixed code (audit log, metrics), the message says more (debug log). */
export class IdJagRefused extends Error {
  constructor(
    readonly reason: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'IdJagRefused';
  }
}

/** An identity provider trusted to issue ID-JAGs. */
export interface IdJagIssuer {
  readonly providerId: string;
  /** Its signing keys (its discovery document's jwks_uri); rejects when they cannot be had. */
  keys(): Promise<JWTVerifyGetKey>;
}

export interface IdJagIssuers {
  /** The trusted provider whose issuer identifier is exactly `iss`; undefined: not trusted. */
  byIssuer(iss: string): IdJagIssuer | undefined;
}

export interface VerifiedIdJag {
  readonly providerId: string;
  readonly issuer: string;
  /** The user's subject at the identity provider. */
  readonly subject: string;
  /** The scope the identity provider granted (none when it named none). */
  readonly scope: readonly string[];
  /** The resources it named (none: the client names one, or gets the default audience). */
  readonly resources: readonly string[];
  readonly jti: string;
  readonly authTime?: number;
  /** Every claim, for the provider's access rules (allowed_email_domains, required_claims). */
  readonly claims: Readonly<JWTPayload>;
}

export interface IdJagVerifierSettings {
  /** Our issuer identifier: the only `aud` accepted (a string, or an array of that one value). */
  readonly issuer: string;
  readonly clock: Clock;
}

function stringsOf(value: unknown, claim: string): string[] {
  if (value === undefined) return [];
  if (typeof value === 'string' && value !== '') return [value];
  if (Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === 'string' && v !== '')) return value as string[];
  throw new IdJagRefused('malformed', `${claim} is neither a string nor an array of strings`);
}

/** The verification failure jose reports, as one of our codes. */
function refusalOf(err: unknown): IdJagRefused {
  if (err instanceof IdJagRefused) return err;
  if (err instanceof errors.JWTExpired) return new IdJagRefused('expired', 'the ID-JAG has expired', { cause: err });
  if (err instanceof errors.JWTClaimValidationFailed) {
    const reason = err.claim === 'aud' ? 'wrong_audience' : err.claim === 'typ' ? 'wrong_type' : 'invalid_claims';
    return new IdJagRefused(reason, `${err.claim}: ${err.message}`, { cause: err });
  }
  if (err instanceof errors.JWKSNoMatchingKey) return new IdJagRefused('unknown_key', 'no key of the provider matches', { cause: err });
  if (err instanceof errors.JWSSignatureVerificationFailed)
    return new IdJagRefused('bad_signature', 'the signature does not verify with the provider key', { cause: err });
  if (err instanceof errors.JOSEAlgNotAllowed)
    return new IdJagRefused('algorithm_not_allowed', 'the algorithm is not accepted', { cause: err });
  // The key set could not be fetched or read (jose's JWKS errors), or the provider's discovery failed (not jose's).
  if (err instanceof errors.JWKSTimeout || err instanceof errors.JWKSInvalid || !(err instanceof errors.JOSEError))
    return new IdJagRefused('keys_unavailable', `the provider keys cannot be had: ${(err as Error).message}`, { cause: err });
  // Any other jose refusal is of the token itself (JWSInvalid, JWTInvalid: its structure or claim types).
  return new IdJagRefused('malformed', err.message, { cause: err });
}

export class IdJagVerifier {
  constructor(
    private readonly issuers: IdJagIssuers,
    private readonly replays: ClientAssertionReplayCache,
    private readonly settings: IdJagVerifierSettings,
  ) {}

  /**
   * Verifies `assertion` for the authenticated client `clientId`; rejects with IdJagRefused,
   * or with StoreUnavailableError when its `jti` cannot be recorded (then nothing is issued).
   */
  async verify(assertion: string, clientId: string): Promise<VerifiedIdJag> {
    let iss: unknown;
    try {
      decodeProtectedHeader(assertion);
      iss = decodeJwt(assertion).iss;
    } catch (err) {
      throw new IdJagRefused('malformed', 'not a signed JWT (JWS compact serialization)', { cause: err });
    }
    // draft §4.3: the issuer must be an identity provider this authorization server trusts.
    const issuer = typeof iss === 'string' ? this.issuers.byIssuer(iss) : undefined;
    if (!issuer || typeof iss !== 'string') throw new IdJagRefused('untrusted_issuer', `issuer ${String(iss)} is not trusted for ID-JAGs`);
    const claims = await this.verified(assertion, iss, issuer);
    // draft §4.3: "The client_id claim MUST identify the same client as the client authentication in the request."
    if (claims.client_id !== clientId) throw new IdJagRefused('other_client', 'client_id is not the authenticated client');
    const { jti, sub } = claims;
    if (typeof sub !== 'string' || sub === '') throw new IdJagRefused('invalid_claims', 'sub is missing');
    if (typeof jti !== 'string' || jti === '' || jti.length > MAX_JTI_LENGTH)
      throw new IdJagRefused('invalid_claims', 'jti is missing or malformed');
    const scope = claims.scope === undefined ? [] : typeof claims.scope === 'string' ? parseScope(claims.scope) : undefined;
    if (scope === undefined) throw new IdJagRefused('malformed', 'scope is not a space-separated list of scope tokens');
    const resources = stringsOf(claims.resource, 'resource');
    const now = nowSeconds(this.settings.clock);
    if ((claims.exp as number) > now + ID_JAG_MAX_LIFETIME_SECONDS + ID_JAG_CLOCK_SKEW_SECONDS)
      throw new IdJagRefused('lifetime_too_long', 'exp is too far in the future');
    const replayWindowSeconds = Math.max(1, Math.ceil((claims.exp as number) + ID_JAG_CLOCK_SKEW_SECONDS - now));
    // RFC 7523 §3 item 7: the authorization server "MAY ensure that JWTs are not replayed by
    // maintaining the set of used "jti" values for the length of time for which the JWT would
    // be considered valid". We do, in the store every instance shares: one SET NX. The scope
    // (a space cannot be in a client id) keeps these apart from client assertions.
    if (!(await this.replays.rememberClientAssertion(`id-jag ${iss}`, jti, replayWindowSeconds)))
      throw new IdJagRefused('replayed', 'the jti was already used');
    return {
      providerId: issuer.providerId,
      issuer: iss,
      subject: sub,
      scope,
      resources,
      jti,
      ...(typeof claims.auth_time === 'number' ? { authTime: claims.auth_time } : {}),
      claims,
    };
  }

  /** The signature by the provider's keys and the registered claims (RFC 7523 §3, draft §4.3). */
  private async verified(assertion: string, iss: string, issuer: IdJagIssuer): Promise<JWTPayload> {
    try {
      const keys = await issuer.keys();
      const { payload } = await jwtVerify(assertion, keys, {
        // draft §3.1: typ "MUST" be "oauth-id-jag+jwt" (jose also accepts it with "application/").
        typ: ID_JAG_TYPE,
        issuer: iss,
        // draft §4.3: "The aud claim MUST identify the Issuer URL of the Resource Authorization Server".
        audience: this.settings.issuer,
        algorithms: [...ID_JAG_ALGORITHMS],
        // RFC 7523 §3 item 4: exp is required, and a passed one is refused (with the skew).
        requiredClaims: ['exp', 'iat', 'jti', 'sub', 'client_id'],
        clockTolerance: ID_JAG_CLOCK_SKEW_SECONDS,
        maxTokenAge: ID_JAG_MAX_LIFETIME_SECONDS,
        currentDate: new Date(this.settings.clock()),
      });
      // jose checked that aud names our issuer; as an array it must name nobody else: a grant
      // for several servers could be replayed at each of them, each remembering its jti only
      // for itself (the audience ambiguity draft-ietf-oauth-rfc7523bis removes).
      if (Array.isArray(payload.aud) && payload.aud.length !== 1)
        throw new IdJagRefused('wrong_audience', 'aud names others than our issuer identifier');
      return payload;
    } catch (err) {
      throw refusalOf(err);
    }
  }
}

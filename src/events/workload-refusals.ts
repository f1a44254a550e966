/**
 * Which check refused a workload's JWT at the token endpoint (WORKLOAD_TRUSTS_FILE): a fixed
 * code for the audit log (`workload.refused`) and a metric label, never sent to the workload
 * (every refusal answers the same invalid_grant).
 */
export type WorkloadRefusal =
  /** Not a signed JWT, a claim of the wrong type, no sub. */
  | 'malformed'
  /** A `typ` of another kind of token (at+jwt, an ID-JAG without a client, …). */
  | 'wrong_type'
  /** No trust names the JWT's `iss`. */
  | 'untrusted_issuer'
  /** `none`, an HMAC (HS256, …) or another algorithm outside the asymmetric list. */
  | 'algorithm_not_allowed'
  /** The issuer's discovery document or JWK Set could not be fetched or used. */
  | 'keys_unavailable'
  /** No key of the issuer for the JWT's `kid` and algorithm. */
  | 'unknown_key'
  | 'bad_signature'
  /** `aud` missing, or naming anyone but the trust's audience (or our issuer and token endpoint). */
  | 'wrong_audience'
  | 'expired'
  /** `nbf` not reached, or `iat` in the future (beyond the clock skew). */
  | 'not_yet_valid'
  /** `exp` more than 24 hours ahead. */
  | 'lifetime_too_long'
  /** No `jti`, and the trust sets require_jti. */
  | 'jti_required'
  /** No rule of the trust admits the workload's sub and claims. */
  | 'no_matching_rule'
  /** A requested resource is not one of the matching rule's. */
  | 'resource_not_allowed'
  /** The workload's sub is a user's sub or a client's id here: its token would pass for theirs. */
  | 'subject_collision'
  /** The `jti` was used before. */
  | 'replayed';

/** The workload got invalid_grant: the check that failed, its trust when the issuer is one, its sub once verified. */
export interface WorkloadRefusedEvent {
  readonly event: 'workload.refused';
  readonly reason: WorkloadRefusal;
  readonly trust?: string;
  readonly sub?: string;
  readonly address: string;
}

import { KeyObject, type webcrypto } from 'node:crypto';
import { type CompactJWSHeaderParameters, errors, type JWTVerifyGetKey } from 'jose';
import { CompactJwsRefused, verifyCompactJwsOnPool } from '@oauth2-token-service/verifier/compact-jws';
import { type Clock, nowSeconds } from '../clock.js';
import type { ClientAssertionReplayCache } from '../store/types.js';
import {
  acceptedAudiences,
  checkAlgorithm,
  checkRegisteredClaims,
  checkType,
  type PeekedAssertion,
  checkWorkloadClaims,
  peekAssertion,
  WorkloadRefused,
} from './assertion.js';
import { matchingRule } from './rules.js';
import type { WorkloadRule, WorkloadTrust } from './trusts.js';

/**
 * A workload's JWT as the authorization server checks it (RFC 7523 §3; MCP Workload Identity
 * Federation, "JWT Validation"): its issuer trusted, its signature by one of the issuer's
 * keys, its claims, and the first rule of the trust that admits it. The `jti` is spent
 * separately (spend), once the request is known good, so a request refused for its resource
 * does not burn the workload's JWT. Every refusal is a WorkloadRefused naming the check.
 */

export interface TrustedIssuers {
  /** The trust whose issuer is exactly `iss`; undefined: not trusted. */
  byIssuer(iss: string): WorkloadTrust | undefined;
}

export interface WorkloadKeySource {
  keysFor(trust: WorkloadTrust): Promise<JWTVerifyGetKey>;
}

export interface WorkloadAssertionSettings {
  readonly issuer: string;
  readonly tokenEndpoint: string;
  readonly clock: Clock;
}

export interface VerifiedWorkload {
  readonly trust: WorkloadTrust;
  readonly sub: string;
  readonly rule: WorkloadRule;
  readonly jti: string | undefined;
  readonly replayWindowSeconds: number;
}

/** The verification failure jose reports, as one of our codes. */
function refusalOf(err: unknown, trust: WorkloadTrust): WorkloadRefused {
  if (err instanceof WorkloadRefused) return err;
  const refused = (reason: ConstructorParameters<typeof WorkloadRefused>[0], message: string) =>
    new WorkloadRefused(reason, message, { cause: err, trust: trust.id });
  if (err instanceof errors.JWTExpired) return refused('expired', 'the JWT has expired');
  if (err instanceof errors.JWTClaimValidationFailed)
    return err.claim === 'nbf' ? refused('not_yet_valid', 'nbf is in the future') : refused('malformed', `${err.claim}: ${err.message}`);
  if (err instanceof errors.JWKSNoMatchingKey) return refused('unknown_key', 'no key of the issuer matches');
  if (err instanceof errors.JWSSignatureVerificationFailed) return refused('bad_signature', 'the signature does not verify');
  if (err instanceof errors.JOSEAlgNotAllowed) return refused('algorithm_not_allowed', 'the algorithm is not accepted');
  // The key set could not be fetched or read (jose's JWKS errors, or our fetcher's).
  if (err instanceof errors.JWKSTimeout || err instanceof errors.JWKSInvalid || !(err instanceof errors.JOSEError))
    return refused('keys_unavailable', `the issuer's keys cannot be had: ${(err as Error).message}`);
  // Any other jose refusal is of the token itself (JWSInvalid, JWTInvalid: its structure or claim types).
  return refused('malformed', err.message);
}

export class WorkloadAssertions {
  /**
   * The issuer's keys as node:crypto key objects, by jose's key (which jose's key sets import
   * once per JWK and algorithm). Signatures are verified with node:crypto, not jose's
   * WebCrypto: see compact-jws.ts in the verifier package for why.
   */
  private readonly keyObjects = new WeakMap<object, KeyObject>();

  constructor(
    private readonly trusts: TrustedIssuers,
    private readonly keys: WorkloadKeySource,
    private readonly replays: ClientAssertionReplayCache,
    private readonly settings: WorkloadAssertionSettings,
  ) {}

  /** Verifies `assertion` and finds the rule that admits its workload; rejects with WorkloadRefused. */
  async verify(assertion: string): Promise<VerifiedWorkload> {
    const peeked = peekAssertion(assertion);
    if (!peeked) throw new WorkloadRefused('malformed', 'not a signed JWT (JWS compact serialization)');
    checkType(peeked.header);
    const { iss } = peeked.claims;
    // MCP Workload Identity Federation: "The authorization server MUST verify that the issuer is
    // trusted according to its configured trust relationships."
    const trust = typeof iss === 'string' ? this.trusts.byIssuer(iss) : undefined;
    if (!trust) throw new WorkloadRefused('untrusted_issuer', `issuer ${String(iss)} is not trusted`);
    checkAlgorithm(peeked.header, trust);
    await this.verifySignature(peeked, trust);
    const { claims } = peeked;
    const now = nowSeconds(this.settings.clock);
    checkRegisteredClaims(claims, trust, now);
    const checked = checkWorkloadClaims(claims, { trust, accepted: acceptedAudiences(trust, this.settings), nowSeconds: now });
    // "The authorization server MUST apply configured authorization rules to determine whether
    // the specific workload identified in the JWT claims should receive an access token."
    const rule = matchingRule(trust.rules, checked.sub, claims);
    if (!rule) throw new WorkloadRefused('no_matching_rule', 'no rule admits the workload', { trust: trust.id, sub: checked.sub });
    return { trust, rule, ...checked };
  }

  /**
   * RFC 7523 §3 item 7: the authorization server "MAY ensure that JWTs are not replayed by
   * maintaining the set of used "jti" values for the length of time for which the JWT would be
   * considered valid". We do, for every JWT with a jti, in the store every instance shares: one
   * SET NX, under a scope of the trust (a space cannot be in a client id). Rejects with
   * StoreUnavailableError when it cannot be recorded (then nothing is issued).
   */
  async spend(workload: VerifiedWorkload): Promise<void> {
    if (workload.jti === undefined) return;
    const scope = `workload ${workload.trust.id}`;
    if (!(await this.replays.rememberClientAssertion(scope, workload.jti, workload.replayWindowSeconds)))
      throw new WorkloadRefused('replayed', 'the jti was already used', { trust: workload.trust.id, sub: workload.sub });
  }

  /** RFC 7523 §3 item 9: "The JWT MUST be digitally signed [...] by the issuer" with one of the trust's keys. */
  private async verifySignature(peeked: PeekedAssertion, trust: WorkloadTrust): Promise<void> {
    const { jws, header } = peeked;
    const alg = header.alg as string;
    let key: KeyObject;
    try {
      const getKey = await this.keys.keysFor(trust);
      const encodedHeader = jws.signingInput.slice(0, jws.signingInput.indexOf('.'));
      const found = await getKey(header as CompactJWSHeaderParameters, {
        protected: encodedHeader,
        payload: jws.payloadSegment,
        signature: jws.signatureSegment,
      });
      key = this.keyObjectOf(found);
    } catch (err) {
      throw refusalOf(err, trust);
    }
    try {
      await verifyCompactJwsOnPool(jws, alg, key);
    } catch (err) {
      if (!(err instanceof CompactJwsRefused)) throw err;
      throw new WorkloadRefused('bad_signature', 'the signature does not verify', { cause: err, trust: trust.id });
    }
  }

  private keyObjectOf(key: Awaited<ReturnType<JWTVerifyGetKey>>): KeyObject {
    if (key instanceof KeyObject) return key;
    let converted = this.keyObjects.get(key);
    if (!converted) this.keyObjects.set(key, (converted = KeyObject.from(key as webcrypto.CryptoKey)));
    return converted;
  }
}

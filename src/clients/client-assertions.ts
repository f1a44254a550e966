import type { KeyObject } from 'node:crypto';
import type { JWK } from 'jose';
import { publicKeyOf, verifyCompactJwsOnPool } from '@oauth2-token-service/verifier/compact-jws';
import { type Clock, nowSeconds } from '../clock.js';
import {
  type AudienceRule,
  type ClientAssertionAlgorithm,
  CLIENT_ASSERTION_ALGORITHMS,
  ClientAssertionRefused,
  checkAssertionAlgorithm,
  checkAssertionClaims,
  decodeClientAssertion,
  isExplicitlyTyped,
} from '../oauth/client-assertion.js';
import type { ClientAssertionReplayCache } from '../store/types.js';
import { candidateKeys, type ClientKeysSource } from './client-jwks.js';
import type { ClientKeys } from './client-keys.js';
import type { Client } from './registry.js';

/**
 * private_key_jwt (RFC 7523 §2.2, OpenID Connect Core §9): whether a client assertion
 * authenticates a client. The rules of the header and claims are in
 * src/oauth/client-assertion.ts; here the key (the client's, by `kid`), the signature, and
 * the single use of `jti`, remembered in the store shared by every instance.
 */

export interface ClientAssertionSettings {
  /** Our issuer identifier: the audience every assertion may name. */
  readonly issuer: string;
  /** Our token endpoint URL: the audience an assertion without `typ: client-authentication+jwt` may name too. */
  readonly tokenEndpoint: string;
  /** CLIENT_ASSERTION_STRICT_AUDIENCE: the issuer identifier alone, whatever the `typ`. */
  readonly strictAudience: boolean;
  readonly clock: Clock;
}

/**
 * Key objects, by the JWK object they came from (a fetched set is a new object) and algorithm.
 * Signatures are verified with node:crypto, not jose: see compact-jws.ts in the verifier
 * package (jose's WebCrypto verification cost about half as much CPU again per assertion).
 */
type ImportedKeys = WeakMap<JWK, Map<string, KeyObject>>;

export class ClientAssertions {
  private readonly imported: ImportedKeys = new WeakMap();
  /** The audiences of an assertion typed client-authentication+jwt, and of one without that typ. */
  private readonly typedAudience: AudienceRule;
  private readonly untypedAudience: AudienceRule;

  constructor(
    private readonly keys: ClientKeys,
    private readonly replays: ClientAssertionReplayCache,
    private readonly settings: ClientAssertionSettings,
  ) {
    this.typedAudience = Object.freeze({ issuer: settings.issuer, tokenEndpoint: undefined });
    this.untypedAudience = settings.strictAudience
      ? this.typedAudience
      : Object.freeze({ issuer: settings.issuer, tokenEndpoint: settings.tokenEndpoint });
  }

  /**
   * Resolves when `assertion` authenticates `client`; rejects with ClientAssertionRefused
   * saying why (for the log) otherwise, and with StoreUnavailableError when the store cannot
   * record its jti (then nothing is issued). The cheap checks come first; the jti is
   * recorded last, once the signature is known good, so nobody else can spend it.
   */
  async verify(assertion: string, client: Client): Promise<void> {
    if (client.authMethod !== 'private_key_jwt' || client.keys === undefined)
      throw new ClientAssertionRefused('wrong_method', `the client authenticates with ${client.authMethod}, not private_key_jwt`);
    const { header, claims, jws } = decodeClientAssertion(assertion);
    const alg = checkAssertionAlgorithm(header, client.assertionSigningAlg ? [client.assertionSigningAlg] : CLIENT_ASSERTION_ALGORITHMS);
    // draft-ietf-oauth-rfc7523bis §4: with its explicit type a client signals that it sends
    // "a JWT conforming to the requirements herein": the issuer identifier as the sole audience.
    const audience = isExplicitlyTyped(header) ? this.typedAudience : this.untypedAudience;
    const { jti, replayWindowSeconds } = checkAssertionClaims(claims, {
      clientId: client.clientId,
      audience,
      nowSeconds: nowSeconds(this.settings.clock),
    });
    const key = await this.keyFor(client.keys, alg, typeof header.kid === 'string' ? header.kid : undefined);
    try {
      await verifyCompactJwsOnPool(jws, alg, this.imports(key, alg));
    } catch (err) {
      throw new ClientAssertionRefused('bad_signature', 'the signature does not verify with the client key', { cause: err });
    }
    if (!(await this.replays.rememberClientAssertion(client.clientId, jti, replayWindowSeconds)))
      throw new ClientAssertionRefused('replayed', 'the jti was already used');
  }

  /**
   * The one key of the client that may have signed: by `kid` when the header names one (RFC
   * 7515 §4.1.4), else the client's only key for the algorithm. A key not found in a
   * `jwks_uri`'s set is looked for once more in a fresh fetch (within the cooldown).
   */
  private async keyFor(source: ClientKeysSource, alg: ClientAssertionAlgorithm, kid: string | undefined): Promise<JWK> {
    let candidates = candidateKeys(await this.jwksOf(source, false), alg, kid);
    if (candidates.length === 0 && 'jwksUri' in source) candidates = candidateKeys(await this.jwksOf(source, true), alg, kid);
    if (candidates.length === 0)
      throw new ClientAssertionRefused('unknown_kid', `no key of the client for ${alg}${kid === undefined ? '' : ` with kid ${kid}`}`);
    if (candidates.length > 1)
      throw new ClientAssertionRefused(
        'ambiguous_key',
        `the client has ${candidates.length} keys for ${alg}${kid === undefined ? ': a kid is needed' : ` with kid ${kid}`}`,
      );
    return candidates[0] as JWK;
  }

  private async jwksOf(source: ClientKeysSource, afterUnknownKey: boolean) {
    try {
      return await this.keys.keysOf(source, afterUnknownKey);
    } catch (err) {
      throw new ClientAssertionRefused('keys_unavailable', `the client's jwks_uri is unusable: ${(err as Error).message}`, { cause: err });
    }
  }

  /** The key object of `jwk` for `alg`, made once; throws CompactJwsRefused when it is not one (not kept: tried again next time). */
  private imports(jwk: JWK, alg: string): KeyObject {
    let byAlg = this.imported.get(jwk);
    if (!byAlg) this.imported.set(jwk, (byAlg = new Map()));
    let key = byAlg.get(alg);
    if (!key) byAlg.set(alg, (key = publicKeyOf(jwk as Record<string, unknown>, alg)));
    return key;
  }
}

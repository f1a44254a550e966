import type { KeyObject } from 'node:crypto';
import { errors, type JWTPayload } from 'jose';
import { type Clock, nowSeconds } from '../clock.js';
import { ServerError } from '../errors/index.js';
import type { Keystore, LoadedKey, SigningKey } from '../keys/keystore.js';
import { formatScope } from '../oauth/scope.js';
import type { ProtectedResource } from '../resources/registry.js';
import { verifiedOwnClaims } from './access-token-verify.js';
import { CompactJwsSigner, type SigningThread } from './jws.js';
import { randomId } from './random-id.js';

/** RFC 9068 JWT access tokens: minted for the token and authorization endpoints, verified for introspection and revocation. */

export interface AccessTokenRequest {
  readonly subject: string;
  readonly clientId: string;
  readonly scope: readonly string[];
  /** Seconds since the epoch when the user authenticated (RFC 9068 §2.2.1), if a user did. */
  readonly authTime?: number;
  /**
   * The grant (code, refresh family) the token comes from: revoking the grant makes
   * introspection report the token inactive. Not secret: it is the public half of the
   * grant's opaque tokens.
   */
  readonly grantId?: string;
  /** The resources (RFC 8707) the token is for: its audience; none: ACCESS_TOKEN_AUDIENCE. */
  readonly resources?: readonly Pick<ProtectedResource, 'resource' | 'accessTokenTtl'>[];
  /** The thumbprint of the DPoP key the token is bound to (RFC 9449 §6.1); undefined: a bearer token. */
  readonly jkt?: string | undefined;
  /** RFC 8693 §4.1: who acts on behalf of `subject` (token exchange), nested over earlier actors. */
  readonly act?: ActorClaim | undefined;
  /** Seconds since the epoch the token must not outlive (an exchanged token, its subject token). */
  readonly expiresNoLaterThan?: number | undefined;
  /** `iss_trust`: the workload trust whose JWT the token was issued for (WORKLOAD_TRUSTS_FILE). */
  readonly issTrust?: string | undefined;
}

/** RFC 8693 §4.1: "act": the acting party's `sub`, and the party it acted for before, if any. */
export interface ActorClaim {
  readonly sub: string;
  readonly act?: ActorClaim;
}

export interface IssuedAccessToken {
  readonly token: string;
  readonly expiresIn: number;
  readonly jti: string;
  /** Set for a DPoP-bound token. */
  readonly jkt?: string;
}

export interface AccessTokenSettings {
  readonly issuer: string;
  readonly audience: string;
  readonly ttlSeconds: number;
  /** Where signatures are computed (ACCESS_TOKEN_SIGNING); default: this thread. */
  readonly signingThread?: SigningThread;
}

/** Claims of one of our access tokens, as introspection and revocation read them. */
export interface OwnAccessTokenClaims extends JWTPayload {
  readonly client_id: string;
  readonly jti: string;
  readonly exp: number;
  readonly grant_id?: string;
  readonly scope?: string;
  /** RFC 9449 §6.1 (RFC 7800 confirmation): the DPoP key thumbprint of a bound token. */
  readonly cnf?: { readonly jkt?: string };
  /** RFC 8693 §4.1: the actor of an exchanged token. */
  readonly act?: ActorClaim;
}

/**
 * RFC 8707 §2: "The authorization server SHOULD audience-restrict issued access tokens to
 * the resource(s) indicated by the "resource" parameter." The exact resource values: one
 * as a string, several as an array (RFC 7519 §4.1.3 allows both; RFC 9068 §2.2 takes
 * `aud` from there). As JSON text, `fallbackJson` when there are none.
 */
function audienceJson(resources: readonly { resource: string }[], fallbackJson: string): string {
  if (resources.length === 0) return fallbackJson;
  return resources.length === 1
    ? JSON.stringify((resources[0] as { resource: string }).resource)
    : JSON.stringify(resources.map((r) => r.resource));
}

export class AccessTokens {
  /** `{"iss":"<issuer>"`: the start of every payload, encoded once. */
  private readonly payloadStart: string;
  private readonly defaultAudienceJson: string;
  /** One signer per key (its protected header encoded once); keys replaced by a reload are dropped with them. */
  private readonly signers = new WeakMap<LoadedKey, CompactJwsSigner>();
  /** node:crypto's objects of our public keys, for verifying our own tokens. */
  private readonly keyObjects = new WeakMap<SigningKey, KeyObject>();

  constructor(
    private readonly keystore: Keystore,
    private readonly settings: AccessTokenSettings,
    private readonly clock: Clock,
  ) {
    this.payloadStart = `{"iss":${JSON.stringify(settings.issuer)}`;
    this.defaultAudienceJson = JSON.stringify(settings.audience);
  }

  /** The longest an access token lives: ACCESS_TOKEN_TTL (a resource's own TTL only shortens it). */
  get longestLifetimeSeconds(): number {
    return this.settings.ttlSeconds;
  }

  private signerFor(key: LoadedKey): CompactJwsSigner {
    let signer = this.signers.get(key);
    if (!signer) {
      // RFC 9068 §2.1: "JWT access tokens MUST include this media type in the "typ" header parameter".
      signer = new CompactJwsSigner(
        { alg: key.alg, kid: key.kid, typ: 'at+jwt' },
        key.alg,
        key.privateKey,
        this.settings.signingThread ?? 'main-thread',
      );
      this.signers.set(key, signer);
    }
    return signer;
  }

  async issue(request: AccessTokenRequest): Promise<IssuedAccessToken> {
    const iat = nowSeconds(this.clock);
    const key = this.keystore.signingKeyAt(iat);
    // Fail closed: with no key inside its signing window there is nothing valid to sign with.
    if (!key) throw new ServerError();
    const jti = randomId();
    const resources = request.resources ?? [];
    // A resource's access_token_ttl only ever shortens ACCESS_TOKEN_TTL, which the key
    // lifecycle relies on (a retired key stays published that long).
    let ttl = this.settings.ttlSeconds;
    for (const r of resources) if (r.accessTokenTtl !== undefined && r.accessTokenTtl < ttl) ttl = r.accessTokenTtl;
    const exp = Math.min(iat + ttl, request.expiresNoLaterThan ?? Number.POSITIVE_INFINITY);
    // The RFC 9068 §2.2 claims as JSON text, built directly (the same text JSON.stringify
    // gives for the claims object, in this order): every string value through JSON.stringify.
    let payload = `${this.payloadStart},"sub":${JSON.stringify(request.subject)},"aud":${audienceJson(resources, this.defaultAudienceJson)},"client_id":${JSON.stringify(request.clientId)}`;
    if (request.scope.length > 0) payload += `,"scope":${JSON.stringify(formatScope(request.scope))}`;
    if (request.authTime !== undefined) payload += `,"auth_time":${request.authTime}`;
    if (request.grantId !== undefined) payload += `,"grant_id":${JSON.stringify(request.grantId)}`;
    if (request.act !== undefined) payload += `,"act":${JSON.stringify(request.act)}`;
    if (request.issTrust !== undefined) payload += `,"iss_trust":${JSON.stringify(request.issTrust)}`;
    payload += `,"iat":${iat},"exp":${exp},"jti":"${jti}"`;
    // RFC 9449 §6.1: "the JWK SHA-256 Thumbprint [...] of the DPoP public key [...] MUST be
    // conveyed using the jkt confirmation method member of the cnf claim".
    if (request.jkt !== undefined) payload += `,"cnf":{"jkt":${JSON.stringify(request.jkt)}}`;
    const token = await this.signerFor(key).sign(`${payload}}`);
    return { token, expiresIn: exp - iat, jti, ...(request.jkt !== undefined ? { jkt: request.jkt } : {}) };
  }

  /** The key that verifies a token with this header: one we publish at `now`, of the header's algorithm; throws otherwise. */
  publicKeyFor(header: { readonly kid?: string | undefined; readonly alg?: string | undefined }, now: number): SigningKey {
    const key = this.publishedKeyFor(header, now);
    if (!key) throw new errors.JWKSNoMatchingKey();
    return key;
  }

  /**
   * The claims of `token` when it is an unexpired access token we signed with a key we
   * still publish; undefined for anything else (malformed, other issuer, bad signature, expired).
   */
  async verify(token: string): Promise<OwnAccessTokenClaims | undefined> {
    const now = nowSeconds(this.clock);
    const payload = await verifiedOwnClaims(token, {
      issuer: this.settings.issuer,
      now,
      keyFor: (header) => this.publishedKeyFor(header, now),
      keyObjects: this.keyObjects,
    });
    return typeof payload?.client_id === 'string' ? (payload as OwnAccessTokenClaims) : undefined;
  }

  private publishedKeyFor(header: { readonly kid?: string | undefined; readonly alg?: string | undefined }, now: number) {
    const key = this.keystore.publishedKey(header.kid, now);
    return key && key.alg === header.alg ? key.publicKey : undefined;
  }
}

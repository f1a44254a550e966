/**
 * The store's side of refresh tokens (src/tokens/refresh-token-format.ts has the token
 * grammar). A family's state has a constant size whatever the number of rotations: the
 * generation and digest of its current token, the digest of the previous one (for the
 * grace retry), the current token's idle deadline and the revocation mark. The immutable
 * family data (client, sub, scope, resources, auth_time, DPoP jkt) travels sealed inside
 * the token itself, so the store never holds it.
 */

/** The authorization behind a family of refresh tokens. */
export interface RefreshFamilyRecord {
  readonly clientId: string;
  readonly sub: string;
  readonly scope: readonly string[];
  /** The resources of the whole grant, as in AuthorizationCodeRecord. */
  readonly resources?: readonly string[];
  readonly authTime: number;
  /** The browser session and sign-in methods of the grant (for the ID token of a refresh, OpenID Connect Core §12.2). */
  readonly sid?: string;
  readonly amr?: readonly string[];
  /** A public client's family is bound to the DPoP key of its first proof (RFC 9449 §5): its thumbprint. */
  readonly jkt?: string;
}

export interface RefreshLifetimes {
  /** The family's absolute lifetime (REFRESH_TOKEN_TTL). */
  readonly absoluteSeconds: number;
  /** A token's lifetime without use (REFRESH_TOKEN_IDLE_TTL). */
  readonly idleSeconds: number;
}

/** The first token of a family: the digest of its `<grantId>.0.<nonce>`, and the family's lifetimes. */
export interface FirstRefreshToken {
  readonly digest: string;
  readonly lifetimes: RefreshLifetimes;
}

/** A presented refresh token as the store sees it: its family, generation and the digest of `<grantId>.<generation>.<nonce>`. */
export interface RefreshTokenRef {
  readonly grantId: string;
  readonly generation: number;
  readonly digest: string;
}

/** What the store keeps of a family (constant size). */
export interface RefreshFamilyState {
  /** The generation of the current token (0: the family's first token). */
  readonly generation: number;
  /** The digest of the current token. */
  readonly currentDigest: string;
  readonly revoked: boolean;
  /** When the current token was issued, in milliseconds since the epoch. */
  readonly issuedAt: number;
  /** When the current token dies (idle or absolute lifetime, whichever comes first), in milliseconds. */
  readonly expiresAt: number;
}

export type RotationOutcome =
  /** The presented token was current: the successor is now current, the presented one rotated. */
  | { readonly status: 'rotated' }
  /** A first retry of the just-rotated token inside the grace window: the sealed successor response. */
  | { readonly status: 'grace'; readonly sealedResponse: string }
  /** A rotated token presented again: the whole family is now revoked (RFC 9700 §4.14.2). */
  | { readonly status: 'reused' }
  /** Unknown, expired, or of a revoked family. */
  | { readonly status: 'invalid' };

export interface RotationOptions {
  readonly idleSeconds: number;
  /** How long the sealed successor response answers one retry of the presented token (0: off). */
  readonly graceSeconds: number;
}

/** Refresh families of the constant-size format. */
export interface RefreshFamilyStore {
  /**
   * The refresh-token key in force: 32 bytes kept by the store and shared by every
   * instance. When the store holds none, `candidate` (by default 32 fresh random bytes)
   * becomes it, unless another instance wrote one first: every caller gets the same key.
   * The memory store has one per process.
   */
  refreshTokenKey(candidate?: Buffer): Promise<Buffer>;
  /**
   * Starts the family of a new grant (the password grant; a code redemption starts its
   * family in the same step as it consumes the code). Resolves false, recording nothing,
   * when the grant was revoked first.
   */
  startRefreshFamily(grantId: string, first: FirstRefreshToken): Promise<boolean>;
  /** The family's state; undefined when it expired, was never started, or is only a revocation mark. */
  readRefreshFamily(grantId: string): Promise<RefreshFamilyState | undefined>;
  /**
   * In one atomic step, by the presented token's generation and digest: rotates (the
   * successor, generation + 1, becomes current and `sealedResponse` is kept for
   * `graceSeconds`), answers the one grace retry, or detects reuse and revokes the family.
   */
  rotateRefreshFamily(
    presented: RefreshTokenRef,
    successorDigest: string,
    sealedResponse: string,
    options: RotationOptions,
  ): Promise<RotationOutcome>;
}

/**
 * A reference to a refresh token of the format before constant-size families
 * (`<grantId>.<secret>`): the SHA-256 digest of the whole value.
 */
export interface LegacyRefreshTokenRef {
  readonly grantId: string;
  readonly digest: string;
}

/** What the store knows of a presented refresh token of the legacy format. */
export interface LegacyRefreshTokenView {
  readonly family: RefreshFamilyRecord;
  /** current: the one usable token of the family; rotated: replaced by a successor; revoked: the family is dead. */
  readonly state: 'current' | 'rotated' | 'revoked';
  /** Milliseconds since the epoch. */
  readonly issuedAt: number;
  /** When the token dies (idle or absolute lifetime, whichever comes first), in milliseconds. */
  readonly expiresAt: number;
}

/**
 * The families written before constant-size families (a family record with its data, one
 * key per token), kept readable and rotatable until the last of them expires
 * (REFRESH_TOKEN_TTL after the upgrade). Only Redis has any: a memory store starts empty.
 */
export interface LegacyRefreshTokenStore {
  readRefreshToken(token: LegacyRefreshTokenRef): Promise<LegacyRefreshTokenView | undefined>;
  /**
   * Rotates in one atomic step: the presented token stops working as its successor (of the
   * legacy format too) starts; `sealedResponse` is kept for `graceSeconds` to answer one retry.
   */
  rotateRefreshToken(
    presented: LegacyRefreshTokenRef,
    successor: LegacyRefreshTokenRef,
    sealedResponse: string,
    options: RotationOptions,
  ): Promise<RotationOutcome>;
}

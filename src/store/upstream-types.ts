/**
 * What sign-in through an upstream identity provider keeps: the sign-ins in progress
 * (between the redirect to the provider and its callback), the profile each federated user
 * last brought, and the upstream's tokens when a provider keeps them. Values arrive sealed
 * (AES-256-GCM) by src/identity/: the store never sees a state, a nonce, a code verifier
 * or an upstream token in clear.
 */

/** Who holds upstream tokens: the browser session they were obtained in, then each grant made in it. */
export type UpstreamTokenHolder = { readonly sessionId: string } | { readonly grantId: string };

/**
 * What a callback's take of a sign-in found: the sealed sign-in (now gone); `unknown` when
 * none was recorded, it expired, or it was taken before; `elsewhere` when it was recorded
 * for another browser or provider, and is left for the callback it belongs to.
 */
export type TakenUpstreamSignIn = { readonly sealed: string } | 'unknown' | 'elsewhere';

export interface UpstreamStore {
  /**
   * Records a sign-in in progress under the digest of its `state`, for `ttlSeconds`, with
   * `binding`: the digest of who may take it (the provider and the browser that started it).
   */
  saveUpstreamSignIn(stateDigest: string, binding: string, sealed: string, ttlSeconds: number): Promise<void>;
  /**
   * In one atomic step (one Redis script): the sign-in recorded under `stateDigest`, taken
   * only when it was recorded with this `binding`. Of any number of concurrent callbacks
   * with one state, exactly one of those with its binding gets it; the others never burn it.
   */
  takeUpstreamSignIn(stateDigest: string, binding: string): Promise<TakenUpstreamSignIn>;

  /** Replaces the profile (the standard claims) of a federated user, kept `ttlSeconds`. */
  saveFederatedProfile(sub: string, profile: Readonly<Record<string, unknown>>, ttlSeconds: number): Promise<void>;
  findFederatedProfile(sub: string): Promise<Readonly<Record<string, unknown>> | undefined>;

  /**
   * Replaces the sealed upstream tokens of `holder`, kept `ttlSeconds`; with `'keep'`, only
   * tokens it still holds are replaced, and their expiry stays. For a grant, in one step with
   * its revocation check. False when nothing was written (a revoked grant, or nothing to replace).
   */
  saveUpstreamTokens(holder: UpstreamTokenHolder, sealed: string, ttlSeconds: number | 'keep'): Promise<boolean>;
  /** The sealed tokens of `holder`; for a revoked grant none, and they are deleted in the same step. */
  findUpstreamTokens(holder: UpstreamTokenHolder): Promise<string | undefined>;
  deleteUpstreamTokens(holder: UpstreamTokenHolder): Promise<void>;
}

/**
 * What sign-in through an upstream identity provider keeps: the sign-ins in progress
 * (between the redirect to the provider and its callback), the profile each federated user
 * last brought, and the upstream's tokens when a provider keeps them. Values arrive sealed
 * (AES-256-GCM) by src/identity/: the store never sees a state, a nonce, a code verifier
 * or an upstream token in clear.
 */

/** Who holds upstream tokens: the browser session they were obtained in, then each grant made in it. */
export type UpstreamTokenHolder = { readonly sessionId: string } | { readonly grantId: string };

export interface UpstreamStore {
  /** Records a sign-in in progress under the digest of its `state`, for `ttlSeconds`. */
  saveUpstreamSignIn(stateDigest: string, sealed: string, ttlSeconds: number): Promise<void>;
  /**
   * In one atomic step (Redis GETDEL): the sign-in recorded under `stateDigest`, now gone.
   * Undefined when none was recorded, it expired, or it was taken before: of any number of
   * concurrent callbacks with one state, exactly one gets it.
   */
  takeUpstreamSignIn(stateDigest: string): Promise<string | undefined>;

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

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

/** A federated user as listed: who signed in, through which provider, when last; as long as their profile is kept. */
export interface FederatedUser {
  readonly sub: string;
  /** The id of the provider they last signed in through. */
  readonly provider: string;
  /** Their last sign-in, in seconds since the epoch. */
  readonly lastSignInAt: number;
  /** When their profile expires unless they sign in again (ms since the epoch). */
  readonly expiresAt: number;
}

/** A page of federated users in the order of their subs. */
export interface FederatedUserPage {
  readonly users: FederatedUser[];
  /** The last sub of this page, when another page may follow. */
  readonly next?: string;
}

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

  /**
   * Replaces the profile (the standard claims) of a federated user who just signed in through
   * `provider`, kept `ttlSeconds`; the user is listed as long (the admin API's list of users).
   */
  saveFederatedProfile(sub: string, profile: Readonly<Record<string, unknown>>, ttlSeconds: number, provider: string): Promise<void>;
  findFederatedProfile(sub: string): Promise<Readonly<Record<string, unknown>> | undefined>;
  /** The federated users whose profile is kept, after the sub `after`, in the order of their subs, at most `limit`. */
  listFederatedUsers(page: { readonly after?: string | undefined; readonly limit: number }): Promise<FederatedUserPage>;
  findFederatedUser(sub: string): Promise<FederatedUser | undefined>;
  /** How many federated users' profiles are kept (the console's overview), without reading them: O(log n) on Redis. */
  countFederatedUsers(): Promise<number>;

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

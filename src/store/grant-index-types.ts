/** The grant indexes (each user's and each client's live grants) and remembered consents. */

/**
 * A grant as the indexes of its user and its client list it: an authorization (code,
 * refresh-token family, or the access tokens of an implicit or password grant) whose
 * tokens carry its id.
 */
export interface IndexedGrant {
  readonly grantId: string;
  readonly sub: string;
  readonly clientId: string;
  /** When nothing of the grant is usable any more (its family, code or access tokens), in milliseconds since the epoch. */
  readonly expiresAt: number;
  /** What the user granted (the account page shows it); grants indexed before these were kept have none. */
  readonly details?: GrantDetails | undefined;
}

/** What a grant is for, fixed when it is made: the same every time the grant is indexed. */
export interface GrantDetails {
  /** When the user granted it, in seconds since the epoch. */
  readonly grantedAt: number;
  readonly scope: readonly string[];
  /** The resources (RFC 8707) it is for; none: ACCESS_TOKEN_AUDIENCE. */
  readonly resources: readonly string[];
}

/** Whose grants: one user's (`sub`) or one client's. */
export type GrantOwner = { readonly sub: string } | { readonly clientId: string };

/**
 * Per user and per client, the live grants. The indexes are not in the grant's hash slot
 * (Redis Cluster): each is written by its own single-key script, before the grant itself,
 * so a crash between the writes leaves an index entry for a grant that never started
 * (harmless, gone at its expiry), never a live grant that no index lists. Entries leave
 * at their expiry; an index never outlives its last entry.
 */
export interface GrantIndex {
  /**
   * Adds the grant to its user's and its client's index, or extends its expiry there (never
   * shortens it); the grant is also known by its id until then (`revokeKnownGrant`).
   */
  indexGrant(grant: IndexedGrant): Promise<void>;
  /** The unexpired entries of one index, soonest expiry first (revoked grants included: the caller checks). */
  listGrants(owner: GrantOwner): Promise<IndexedGrant[]>;
  /** How many unexpired entries one index holds (revoked grants not yet unindexed included), without reading them. */
  countGrants(owner: GrantOwner): Promise<number>;
  /** Drops the grants from their user's and their client's index. */
  unindexGrants(grants: readonly IndexedGrant[]): Promise<void>;
}

/** What a user approved for a client: the scope, and the audiences of the tokens (see consentedAudiences). */
export interface RememberedConsent {
  readonly scope: readonly string[];
  /** The resources (RFC 8707) approved, or ACCESS_TOKEN_AUDIENCE for a request that named none. */
  readonly audiences: readonly string[];
}

/**
 * Consent a user gave a client, remembered for CONSENT_TTL; kept with the user's other data
 * (one slot per user), and the user listed under the client (its own slot) before it, so
 * the consents to one client can be forgotten without searching every user.
 */
export interface ConsentStore {
  /** Remembers (replacing what was remembered for this client) for `ttlSeconds`. */
  rememberConsent(sub: string, clientId: string, consent: RememberedConsent, ttlSeconds: number): Promise<void>;
  /** The unexpired consent; a record written before consents named their audiences is none (the user is asked again). */
  findConsent(sub: string, clientId: string): Promise<RememberedConsent | undefined>;
  /** Forgets the user's consent to one client, or, without `clientId`, to every client. */
  forgetConsent(sub: string, clientId?: string): Promise<void>;
  /** Forgets every user's consent to the client. */
  forgetConsentsToClient(clientId: string): Promise<void>;
}

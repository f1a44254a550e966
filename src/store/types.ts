/**
 * Narrow store interfaces. Only authorization codes and refresh tokens live in the
 * store; access tokens are self-contained JWTs. Every method either resolves with
 * the store's acknowledgement or rejects with StoreUnavailableError: callers issue
 * nothing they could not record (fail closed).
 */

import type { FirstRefreshToken, LegacyRefreshTokenStore, RefreshFamilyStore } from './refresh-types.js';

export type * from './refresh-types.js';

/**
 * How the store names an authorization code (or a legacy refresh token): the grant it belongs to
 * (the public half of the value, and the Redis Cluster hash tag) and the SHA-256 digest
 * of the whole value (the store never holds the value itself).
 */
export interface OpaqueTokenRef {
  readonly grantId: string;
  readonly digest: string;
}

export interface AuthorizationCodeRecord {
  readonly clientId: string;
  /** The redirect URI the response went to. */
  readonly redirectUri: string;
  /** Whether the authorization request carried redirect_uri (then the token request must repeat it). */
  readonly redirectUriSent: boolean;
  readonly scope: readonly string[];
  /**
   * The resources granted (RFC 8707 resource indicators, exactly as registered); absent or
   * empty: none, the tokens carry ACCESS_TOKEN_AUDIENCE (records written before resource
   * indicators have no such field).
   */
  readonly resources?: readonly string[];
  readonly sub: string;
  /** Seconds since the epoch when the user authenticated. */
  readonly authTime: number;
  readonly codeChallenge: string | undefined;
  /** RFC 9449 §10: the `dpop_jkt` of the authorization request; the token request must prove that key. */
  readonly dpopJkt?: string;
}

export type RedemptionOutcome =
  /** First presentation: the record, now marked used; `familyStarted` when the refresh family started with it. */
  | { readonly status: 'consumed'; readonly record: AuthorizationCodeRecord; readonly familyStarted: boolean }
  /** Already used: the tombstone's record; the grant is now revoked (in the same step). */
  | { readonly status: 'replayed'; readonly record: AuthorizationCodeRecord }
  /** Never issued, or expired. */
  | { readonly status: 'not_found' };

export interface CodeRedemption {
  /** How long a replay's revocation mark is kept: the longest a refresh family lives. */
  readonly revocationMarkSeconds: number;
  /** When the client gets a refresh token: the family to start, unless the grant was revoked first. */
  readonly firstRefreshToken?: FirstRefreshToken | undefined;
}

export interface AuthorizationCodeStore {
  /** Records a new code; it expires after `ttlSeconds`. */
  saveAuthorizationCode(code: OpaqueTokenRef, record: AuthorizationCodeRecord, ttlSeconds: number): Promise<void>;
  /**
   * In one atomic step (one round trip): marks the code used and returns its record; on
   * the first use also starts the refresh family (`redemption.firstRefreshToken`) unless
   * the grant was revoked first; on a replay revokes the grant instead. Of any number of
   * concurrent calls for one code, exactly one sees `consumed`. The used record stays as
   * a tombstone until the code would have expired.
   */
  redeemAuthorizationCode(code: OpaqueTokenRef, redemption: CodeRedemption): Promise<RedemptionOutcome>;
}

export interface GrantRevocation {
  /** Revokes a grant for at least `ttlSeconds`: its refresh tokens stop working and no family can start. */
  revokeGrant(grantId: string, ttlSeconds: number): Promise<void>;
  isGrantRevoked(grantId: string): Promise<boolean>;
}

/** Revocation of a grant an operator names by its id (`grants revoke <grant-id>`): a typo must write nothing. */
export interface KnownGrantRevocation {
  /**
   * In one atomic step: when the store knows the grant (its index entry has not expired, or
   * it has a refresh family or a revocation mark), revokes it as `revokeGrant` does and
   * resolves true; else resolves false and writes nothing.
   */
  revokeKnownGrant(grantId: string, ttlSeconds: number): Promise<boolean>;
}

/** Revoked access tokens (JWTs), by `jti`, until they would have expired anyway. */
export interface AccessTokenDenylist {
  denylistAccessToken(jti: string, ttlSeconds: number): Promise<void>;
  isAccessTokenDenylisted(jti: string): Promise<boolean>;
}

/**
 * DPoP proofs seen (RFC 9449 §11.1): "the server MUST ensure that the same DPoP proof is
 * not used more than once". A `jti` is scoped by the thumbprint of the key that signed
 * the proof, so two clients can never collide on one.
 */
export interface DpopProofReplayCache {
  /**
   * In one atomic step (Redis `SET NX PX`): resolves true the first time a proof is seen,
   * recording it for `ttlSeconds`; false for a replay. Of any number of concurrent calls
   * with one proof, exactly one resolves true.
   */
  rememberDpopProof(jkt: string, jti: string, ttlSeconds: number): Promise<boolean>;
}

export type AttemptReservation =
  | { readonly reserved: true }
  /**
   * `limit` attempts are already counted. `inFlight`: some are still in flight and the
   * settled ones alone stay under the limit, so a place may free up any moment; else the
   * limit is reached by settled attempts and holds until the window closes.
   */
  | { readonly reserved: false; readonly retryAfterSeconds: number; readonly inFlight: boolean };

/**
 * How long a reserved attempt counts as in flight at most, from the latest reservation on
 * its counter: a check takes well under a second, so one unsettled this long is taken for
 * lost (its process died, or the store did not answer) and stays counted as settled.
 */
export const ATTEMPT_IN_FLIGHT_SECONDS = 30;

/**
 * Attempt counters shared by every instance (sign-in throttling, the registration rate
 * limit). A limit is a reservation, not a check: the attempt is counted before the
 * expensive step, so a concurrent burst cannot pass a read-then-record check all at once.
 * A reserved attempt is in flight until it is settled by exactly one of keep, release or
 * clear.
 */
export interface AttemptCounter {
  /**
   * In one atomic step: refuses when `limit` attempts are already counted under `key`
   * (saying whether attempts in flight hold the limit), else counts this one, in flight.
   * The window opens at the first counted attempt and lasts `windowSeconds`; it does not
   * slide.
   */
  reserveAttempt(key: string, limit: number, windowSeconds: number): Promise<AttemptReservation>;
  /** Settles one attempt that stays counted (a failure, a registration). Never creates a counter. */
  keepAttempt(key: string): Promise<void>;
  /** Settles one attempt by giving it back (it turned out not to count). Never creates a counter. */
  releaseAttempt(key: string): Promise<void>;
  /** Settles one attempt that succeeded: forgets it and every settled attempt under `key`; those in flight stay counted. */
  clearAttempts(key: string): Promise<void>;
}

/**
 * A client registered at the registration endpoint (RFC 7591), as the store keeps it:
 * its metadata and the digests of its secrets, never the secrets themselves.
 */
export interface ClientRegistrationRecord {
  readonly clientId: string;
  /** The client metadata as registered (validated RFC 7591 fields); read back through the registration schema. */
  readonly metadata: Readonly<Record<string, unknown>>;
  /** `sha256:` digest of the client secret; absent for a public client. */
  readonly clientSecretHash?: string;
  /** `sha256:` digest of the registration access token (RFC 7592 §1). */
  readonly registrationTokenHash: string;
  /** `client_id_issued_at`: seconds since the epoch. */
  readonly issuedAt: number;
}

export interface StoredClientRegistration {
  readonly record: ClientRegistrationRecord;
  /** When the registration expires unless it is used (touched) again, in milliseconds since the epoch. */
  readonly expiresAt: number;
}

/**
 * Registered clients, shared by every instance. Each registration expires `ttlSeconds`
 * after it was created, replaced or last touched, so unused ones disappear on their own.
 */
export interface ClientRegistrationStore {
  /** Records a new registration; resolves false, changing nothing, when the id is taken (never overwrites). */
  createClientRegistration(record: ClientRegistrationRecord, ttlSeconds: number): Promise<boolean>;
  findClientRegistration(clientId: string): Promise<StoredClientRegistration | undefined>;
  /** Replaces an existing registration (RFC 7592 §2.2); resolves false, creating nothing, when it is gone. */
  replaceClientRegistration(record: ClientRegistrationRecord, ttlSeconds: number): Promise<boolean>;
  /** Resolves false when there was nothing to delete. */
  deleteClientRegistration(clientId: string): Promise<boolean>;
  /** Restarts the expiry of an existing registration (the client was used); resolves false when it is gone. */
  touchClientRegistration(clientId: string, ttlSeconds: number): Promise<boolean>;
}

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

export interface StoreLifecycle {
  /** Resolves when the store answers and acknowledges a write (Redis: a short-lived probe key); used by /readyz. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface Store
  extends
    AuthorizationCodeStore,
    RefreshFamilyStore,
    GrantRevocation,
    KnownGrantRevocation,
    AccessTokenDenylist,
    DpopProofReplayCache,
    StoreLifecycle {
  readonly kind: 'memory' | 'redis';
  /** The refresh families written before constant-size families (Redis only: a memory store starts empty). */
  readonly legacyRefreshTokens?: LegacyRefreshTokenStore | undefined;
  /** Attempt counters: the sign-in limits and the registration rate limit. */
  readonly attempts: AttemptCounter;
  /** Dynamically registered clients (RFC 7591), kept apart from the grant data. */
  readonly clientRegistrations: ClientRegistrationStore;
  /** The grants of each user and each client (grant administration). */
  readonly grantIndex: GrantIndex;
  /** Remembered consent, per user and client. */
  readonly consents: ConsentStore;
}

/** Told about every Redis store operation as it ends (the metrics); must not throw. */
export interface StoreCommandObserver {
  storeCommandFinished(operation: string, seconds: number, succeeded: boolean): void;
}

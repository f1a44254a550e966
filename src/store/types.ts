/**
 * Narrow store interfaces. Only authorization codes, device codes and refresh tokens live in the
 * store; access tokens are self-contained JWTs. Every method either resolves with
 * the store's acknowledgement or rejects with StoreUnavailableError: callers issue
 * nothing they could not record (fail closed).
 */

import type { FirstRefreshToken, LegacyRefreshTokenStore, RefreshFamilyStore } from './refresh-types.js';

export type * from './refresh-types.js';
export type * from './registration-types.js';
export type * from './grant-index-types.js';
export type * from './upstream-types.js';
export type * from './device-types.js';
import type { ConsentStore, GrantIndex } from './grant-index-types.js';
import type { ClientRegistrationStore } from './registration-types.js';
import type { UpstreamStore } from './upstream-types.js';
import type { DeviceCodeStore } from './device-types.js';
export type * from './entry-types.js';
import type { EntryStore } from './entry-types.js';

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
  /** OpenID Connect Core §3.1.2.1: the request's `nonce`, for the ID token. */
  readonly nonce?: string;
  /** The browser session the user approved in (`sid` of the ID token), and how they signed in (`amr`). */
  readonly sid?: string;
  readonly amr?: readonly string[];
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

/**
 * Client assertions seen (RFC 7523 §3 item 7, OpenID Connect Core §9: "The JWT MAY
 * contain a "jti" (JWT ID) claim"; §9 makes it REQUIRED "to prevent replay"). A `jti` is
 * scoped by the client that signed it, so two clients never collide on one.
 */
export interface ClientAssertionReplayCache {
  /**
   * In one atomic step (Redis `SET NX PX`): resolves true the first time `clientId` presents
   * `jti`, recording it for `ttlSeconds`; false for a replay. Of any number of concurrent
   * calls with one assertion, exactly one resolves true.
   */
  rememberClientAssertion(clientId: string, jti: string, ttlSeconds: number): Promise<boolean>;
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
    ClientAssertionReplayCache,
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
  /** Sign-ins through upstream identity providers: in progress, federated profiles, kept upstream tokens. */
  readonly upstream: UpstreamStore;
  /** Device authorizations (RFC 8628): their codes' digests and polling state. */
  readonly deviceCodes: DeviceCodeStore;
  /** The entries of the admin API (clients, resources, providers, users, subject marks), followed by src/entries/. */
  readonly entries: EntryStore;
}

/** Told about every Redis store operation as it ends (the metrics); must not throw. */
export interface StoreCommandObserver {
  storeCommandFinished(operation: string, seconds: number, succeeded: boolean): void;
}

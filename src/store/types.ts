import type { OpaqueTokenRef } from '../tokens/opaque.js';

/**
 * Narrow store interfaces. Only authorization codes and refresh tokens live in the
 * store; access tokens are self-contained JWTs. Every method either resolves with
 * the store's acknowledgement or rejects with StoreUnavailableError: callers issue
 * nothing they could not record (fail closed).
 */

export interface AuthorizationCodeRecord {
  readonly clientId: string;
  /** The redirect_uri exactly as sent to the authorization endpoint, if it was sent. */
  readonly redirectUri: string | undefined;
  readonly scope: readonly string[];
  readonly sub: string;
  /** Seconds since the epoch when the user authenticated. */
  readonly authTime: number;
  readonly codeChallenge: string | undefined;
}

export type ConsumeOutcome<R> =
  /** First presentation: the record, now marked used. */
  | { readonly status: 'consumed'; readonly record: R }
  /** Already used: the tombstone's record, so the caller can revoke what it issued. */
  | { readonly status: 'replayed'; readonly record: R }
  /** Never issued, or expired. */
  | { readonly status: 'not_found' };

export interface AuthorizationCodeStore {
  /** Records a new code; it expires after `ttlSeconds`. */
  saveAuthorizationCode(code: OpaqueTokenRef, record: AuthorizationCodeRecord, ttlSeconds: number): Promise<void>;
  /**
   * Atomically marks the code used and returns its record. Of any number of
   * concurrent calls for one code, exactly one sees `consumed`. The used record stays
   * as a tombstone until the code would have expired.
   */
  consumeAuthorizationCode(code: OpaqueTokenRef): Promise<ConsumeOutcome<AuthorizationCodeRecord>>;
}

export interface StoreLifecycle {
  /** Resolves when the store answers; used by /readyz. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface Store extends AuthorizationCodeStore, StoreLifecycle {
  readonly kind: 'memory' | 'redis';
}

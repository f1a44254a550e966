/**
 * The device authorization grant (RFC 8628) in the store: each device authorization is one
 * record under the SHA-256 digest of its device code (in its grant's hash tag), found from
 * the browser by the digest of its normalised user code (a key of its own, written first).
 * The polling state (the interval, the last poll) lives with the record, so any instance
 * answers any poll. The store never holds a device code or a user code.
 */

import type { OpaqueTokenRef } from './types.js';

/** What the device asked for (RFC 8628 §3.1), as validated when it started. */
export interface DeviceAuthorizationRecord {
  readonly clientId: string;
  readonly scope: readonly string[];
  /** The resources requested (RFC 8707), exactly as registered; empty: ACCESS_TOKEN_AUDIENCE. */
  readonly resources: readonly string[];
}

/** Who approved, and what: the user of the browser session, the scope they approved. */
export interface DeviceApproval {
  readonly sub: string;
  /** Seconds since the epoch when the user signed in. */
  readonly authTime: number;
  readonly scope: readonly string[];
  readonly sid?: string;
  readonly amr?: readonly string[];
}

export interface DeviceAuthorizationStart {
  readonly record: DeviceAuthorizationRecord;
  /** How long the codes are good for (DEVICE_CODE_TTL): the user code's key lives as long. */
  readonly lifetimeSeconds: number;
  /** How long the record is kept in all (past its expiry, a poll is told `expired_token`). */
  readonly keepSeconds: number;
  /** The least time between two polls at first (RFC 8628 §3.2 `interval`). */
  readonly intervalSeconds: number;
}

/** A device authorization the user may still approve or deny. */
export interface PendingDeviceAuthorization {
  readonly device: OpaqueTokenRef;
  readonly record: DeviceAuthorizationRecord;
  /** Milliseconds since the epoch. */
  readonly expiresAt: number;
}

/** What one poll of the token endpoint found, in the order the store checks. */
export type DevicePoll =
  /** Never started, no longer kept, or started by another client. */
  | { readonly status: 'unknown' }
  /** Its tokens were issued to an earlier poll. */
  | { readonly status: 'used' }
  /** `first`: this is the first poll to find it expired (counted once). */
  | { readonly status: 'expired'; readonly first: boolean }
  /** Polled sooner than the interval after the last poll: the interval, now longer, to keep from now on. */
  | { readonly status: 'slow_down'; readonly intervalSeconds: number }
  | { readonly status: 'pending' }
  | { readonly status: 'denied' }
  /** Approved: now used, in the same step. Of concurrent polls exactly one sees this. */
  | { readonly status: 'approved'; readonly record: DeviceAuthorizationRecord; readonly approval: DeviceApproval };

export type DeviceDecision = { readonly approved: DeviceApproval } | 'denied';

export interface DeviceCodeStore {
  /**
   * Records a device authorization, pending: first the user code's key (refused when it is
   * taken: then resolves false and writes nothing more, and the caller draws another user
   * code), then the record. Every key expires.
   */
  startDeviceAuthorization(device: OpaqueTokenRef, userCodeDigest: string, start: DeviceAuthorizationStart): Promise<boolean>;
  /** The device authorization a user code names, while it is pending and not expired. */
  findDeviceAuthorization(userCodeDigest: string): Promise<PendingDeviceAuthorization | undefined>;
  /** In one atomic step: approves or denies, only a pending, unexpired authorization; false when it was not. */
  decideDeviceAuthorization(device: OpaqueTokenRef, decision: DeviceDecision): Promise<boolean>;
  /**
   * In one atomic step (one round trip), for `clientId`: checks use, expiry and the interval
   * (too soon: the interval grows by `slowDownSeconds` and is kept, RFC 8628 §3.5), records
   * the poll, and answers the state; an approved authorization is marked used as it is returned.
   */
  pollDeviceAuthorization(device: OpaqueTokenRef, clientId: string, slowDownSeconds: number): Promise<DevicePoll>;
}

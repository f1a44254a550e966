import { addressLimitKey } from '../address-limit-key.js';
import type { AttemptCounter, AttemptReservation } from '../store/types.js';

export interface SignInLimits {
  /** LOGIN_MAX_FAILURES: attempts per username within the window. */
  readonly maxPerUsername: number;
  /** LOGIN_MAX_FAILURES_PER_IP: attempts per client address within the window. */
  readonly maxPerAddress: number;
  /** LOGIN_FAILURE_WINDOW, in seconds. */
  readonly windowSeconds: number;
  /** IPV6_LIMIT_PREFIX: an IPv6 client counts by its network of this many bits. */
  readonly ipv6LimitPrefix: number;
}

/** A reserved sign-in attempt; left alone, it stays counted as a failure. */
export interface ReservedAttempt {
  /** The password was right: the username's failures are forgotten and the address reservation given back. */
  succeeded(): Promise<void>;
  /** The password was never checked: both reservations are given back. */
  unchecked(): Promise<void>;
}

export type ThrottleDecision =
  { readonly reserved: true; readonly attempt: ReservedAttempt } | { readonly reserved: false; readonly retryAfterSeconds: number };

/**
 * Sign-in throttling, shared by the login page and the password grant: both count on the
 * same two counters, one per username (case-insensitive) and one per client address,
 * because guessing alice's password is the same attack whichever endpoint it uses.
 *
 * Each attempt is reserved before its password is checked, so of any number of concurrent
 * attempts at most the limit get checked. The two counters are different keys (different
 * Redis Cluster slots), so they are reserved one after the other, each atomically: the
 * address first, so an address already refused never touches a username's counter.
 */
export class SignInThrottle {
  constructor(
    private readonly counter: AttemptCounter,
    private readonly limits: SignInLimits,
  ) {}

  async reserve(username: string, clientAddress: string): Promise<ThrottleDecision> {
    const { maxPerUsername, maxPerAddress, windowSeconds, ipv6LimitPrefix } = this.limits;
    const usernameKey = `username:${username.toLowerCase()}`;
    const addressKey = `address:${addressLimitKey(clientAddress, ipv6LimitPrefix)}`;

    const byAddress = await this.counter.reserveAttempt(addressKey, maxPerAddress, windowSeconds);
    if (!byAddress.reserved) return byAddress;
    let byUsername: AttemptReservation;
    try {
      byUsername = await this.counter.reserveAttempt(usernameKey, maxPerUsername, windowSeconds);
    } catch (err) {
      await this.counter.releaseAttempt(addressKey).catch(() => undefined);
      throw err;
    }
    if (!byUsername.reserved) {
      await this.counter.releaseAttempt(addressKey);
      return byUsername;
    }
    return {
      reserved: true,
      attempt: {
        succeeded: () => settle([this.counter.clearAttempts(usernameKey), this.counter.releaseAttempt(addressKey)]),
        unchecked: () => settle([this.counter.releaseAttempt(usernameKey), this.counter.releaseAttempt(addressKey)]),
      },
    };
  }
}

/** Waits for every store call, then throws the first failure if any. */
async function settle(calls: readonly Promise<void>[]): Promise<void> {
  const failed = (await Promise.allSettled(calls)).find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
}

import { addressLimitKey } from '../shared/address-limit-key.js';
import type { AttemptCounter, AttemptReservation } from '../store/types.js';
import { SettledAttempts } from './settled-attempts.js';

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

/** How long an attempt refused while others are being checked waits for one of them to finish. */
export interface InFlightWait {
  /** At most this long in all: a check takes a scrypt run, well under a second. */
  readonly maxMs: number;
  /** Between tries (for checks finishing at other instances, which wake no one here). */
  readonly pollMs: number;
}

export const IN_FLIGHT_WAIT: InFlightWait = { maxMs: 500, pollMs: 100 };

/** What a caller refused while checks are in flight is asked to wait. */
const IN_FLIGHT_RETRY_AFTER_SECONDS = 1;

/** A reserved sign-in attempt, settled by exactly one of these once its password was (or was not) checked. */
export interface ReservedAttempt {
  /** The password was right: the username's failures are forgotten and the address reservation given back. */
  succeeded(): Promise<void>;
  /** Unknown user or wrong password: the attempt stays counted on both counters. */
  failed(): Promise<void>;
  /** The password was never checked: both reservations are given back. */
  unchecked(): Promise<void>;
}

export type ThrottleDecision =
  | { readonly reserved: true; readonly attempt: ReservedAttempt }
  /** `checksInFlight`: past the wait, the limit was still held by attempts being checked, not by failures. */
  | { readonly reserved: false; readonly retryAfterSeconds: number; readonly checksInFlight: boolean };

type Reserved = Extract<ThrottleDecision, { reserved: true }>;
/** The counter that refused, and what the store said. */
type Refusal = { readonly reserved: false; readonly key: string; readonly retryAfterSeconds: number; readonly inFlight: boolean };

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
  private readonly settled = new SettledAttempts();

  constructor(
    private readonly counter: AttemptCounter,
    private readonly limits: SignInLimits,
    private readonly wait: InFlightWait = IN_FLIGHT_WAIT,
  ) {}

  /**
   * Reserves the attempt on both counters. When the store says a limit is held by attempts
   * still being checked (not by failures), waits for one to settle and tries again, for at
   * most `wait.maxMs`: six parallel sign-ins of one account are not told "too many failed
   * attempts" while nothing failed.
   */
  async reserve(username: string, clientAddress: string): Promise<ThrottleDecision> {
    const usernameKey = `username:${username.toLowerCase()}`;
    const addressKey = `address:${addressLimitKey(clientAddress, this.limits.ipv6LimitPrefix)}`;
    const deadline = performance.now() + this.wait.maxMs;
    for (;;) {
      const decision = await this.reserveBoth(usernameKey, addressKey);
      if (decision.reserved) return decision;
      if (!decision.inFlight) {
        this.settled.wakeAll(decision.key);
        return { reserved: false, retryAfterSeconds: decision.retryAfterSeconds, checksInFlight: false };
      }
      const left = deadline - performance.now();
      if (left <= 0) return { reserved: false, retryAfterSeconds: IN_FLIGHT_RETRY_AFTER_SECONDS, checksInFlight: true };
      await this.settled.next(decision.key, Math.min(left, this.wait.pollMs));
    }
  }

  private async reserveBoth(usernameKey: string, addressKey: string): Promise<Reserved | Refusal> {
    const { maxPerUsername, maxPerAddress, windowSeconds } = this.limits;
    const byAddress = await this.counter.reserveAttempt(addressKey, maxPerAddress, windowSeconds);
    if (!byAddress.reserved) return { ...byAddress, key: addressKey };
    let byUsername: AttemptReservation;
    try {
      byUsername = await this.counter.reserveAttempt(usernameKey, maxPerUsername, windowSeconds);
    } catch (err) {
      await this.counter.releaseAttempt(addressKey).catch(() => undefined);
      throw err;
    }
    if (!byUsername.reserved) {
      // Back to where the address was before this try: no one's answer changed, no one to wake.
      await this.counter.releaseAttempt(addressKey);
      return { ...byUsername, key: usernameKey };
    }
    const { counter, settled } = this;
    const wakeOneEach = () => [usernameKey, addressKey].forEach((key) => settled.wakeOne(key));
    return {
      reserved: true,
      attempt: {
        // The username's failures are forgotten: any number of places may have come free there.
        succeeded: () =>
          settle([counter.clearAttempts(usernameKey), counter.releaseAttempt(addressKey)], () => {
            settled.wakeAll(usernameKey);
            settled.wakeOne(addressKey);
          }),
        failed: () => settle([counter.keepAttempt(usernameKey), counter.keepAttempt(addressKey)], wakeOneEach),
        unchecked: () => settle([counter.releaseAttempt(usernameKey), counter.releaseAttempt(addressKey)], wakeOneEach),
      },
    };
  }
}

/** Waits for every store call, wakes the waiters it may concern, then throws the first failure if any. */
async function settle(calls: readonly Promise<void>[], wake: () => void): Promise<void> {
  const results = await Promise.allSettled(calls);
  wake();
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
}

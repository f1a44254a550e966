import { NO_EVENTS, type SecurityEvents, type SignInChannel } from '../events/types.js';
import type { User } from './registry.js';
import { NO_SUBJECT_CHECKS, type SubjectChecks } from './subject-status.js';
import type { SignInThrottle } from './sign-in-throttle.js';
import type { SlotOutcome, VerificationSlots } from './verification-slots.js';

/** What checks a username and password (the user registry: one scrypt run per call). */
export interface PasswordAuthenticator {
  authenticate(username: string, password: string): Promise<User | undefined>;
}

/** How long a caller refused for capacity is asked to wait: a verification takes well under a second. */
const BUSY_RETRY_AFTER_SECONDS = 1;

export type SignInOutcome =
  | { readonly outcome: 'signed_in'; readonly user: User }
  /** Unknown username or wrong password: one failure counted. */
  | { readonly outcome: 'wrong_credentials' }
  /** The username or the address is at its limit: the password was not checked. */
  | { readonly outcome: 'throttled'; readonly retryAfterSeconds: number }
  /**
   * The limit is held by attempts still being checked, not by failures, and none finished
   * within the wait: the password was not checked, nothing counted; worth a retry in a second.
   */
  | { readonly outcome: 'checks_in_flight'; readonly retryAfterSeconds: number }
  /** Every verification slot and queue place is taken: the password was not checked, nothing counted. */
  | { readonly outcome: 'busy'; readonly retryAfterSeconds: number };

/**
 * A password sign-in, for the login page and the password grant alike: reserve the attempt
 * (throttle), get a verification slot, check the password, then settle the reservation.
 * Fails closed: a store error at any step rejects (StoreUnavailableError) and signs no one in.
 */
export class PasswordSignIn {
  constructor(
    private readonly users: PasswordAuthenticator,
    private readonly throttle: SignInThrottle,
    private readonly slots: VerificationSlots,
    private readonly events: SecurityEvents = NO_EVENTS,
    /** A disabled user (file, store or subject mark) is refused like a wrong password: no oracle of the right one. */
    private readonly subjects: SubjectChecks = NO_SUBJECT_CHECKS,
  ) {}

  /** `channel` only names where the attempt came from in the events it reports. */
  async attempt(username: string, password: string, clientAddress: string, channel: SignInChannel = 'login_page'): Promise<SignInOutcome> {
    const address = clientAddress;
    const decision = await this.throttle.reserve(username, clientAddress);
    if (!decision.reserved) {
      const { retryAfterSeconds, checksInFlight } = decision;
      this.events.emit({ event: 'signin.throttled', channel, address, retryAfterSeconds, ...(checksInFlight ? { checksInFlight } : {}) });
      return { outcome: checksInFlight ? 'checks_in_flight' : 'throttled', retryAfterSeconds };
    }
    const { attempt } = decision;

    let verified: SlotOutcome<User | undefined>;
    try {
      verified = await this.slots.run(() => this.users.authenticate(username, password));
    } catch (err) {
      await attempt.unchecked().catch(() => undefined);
      throw err;
    }
    if (!verified.admitted) {
      await attempt.unchecked();
      return { outcome: 'busy', retryAfterSeconds: BUSY_RETRY_AFTER_SECONDS };
    }
    const disabled = verified.value !== undefined && this.subjects.isDisabled(verified.value.sub);
    if (!verified.value || disabled) {
      this.events.emit({ event: 'signin.failed', channel, address, ...(disabled ? { reason: 'user_disabled' as const } : {}) });
      // Counted either way: a settle the store missed only leaves the attempt in flight a while (ATTEMPT_IN_FLIGHT_SECONDS).
      await attempt.failed().catch(() => undefined);
      return { outcome: 'wrong_credentials' };
    }
    await attempt.succeeded();
    this.events.emit({ event: 'signin.succeeded', sub: verified.value.sub, channel, address });
    return { outcome: 'signed_in', user: verified.value };
  }
}

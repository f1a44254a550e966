import { addressLimitKey } from '../shared/address-limit-key.js';
import type { AttemptCounter } from '../store/types.js';

/**
 * RFC 8628 §5.1: "the authorization server should consider rate-limiting user-code entry"
 * against brute forcing. Each user code typed at /device is reserved, before it is looked
 * up, on two counters of one minute: the client address's (DEVICE_USER_CODE_MAX_FAILURES) and
 * the whole server's (a hundred times that), which bounds how many of the 20^8 codes can be
 * tried while any is live, whatever the number of addresses. A code that names a pending
 * authorization is given back; any other stays counted.
 */

const WINDOW_SECONDS = 60;
/** The limit of all addresses together, as a multiple of one address's. */
const ALL_ADDRESSES_FACTOR = 100;
const EVERYONE = 'device-user-code:all';

export interface UserCodeLimits {
  /** DEVICE_USER_CODE_MAX_FAILURES: wrong codes per client address and minute. */
  readonly perAddress: number;
  /** IPV6_LIMIT_PREFIX. */
  readonly ipv6Prefix: number;
}

export type UserCodeAttempt =
  { readonly reserved: true; settle(found: boolean): Promise<void> } | { readonly reserved: false; readonly retryAfterSeconds: number };

export class UserCodeAttempts {
  constructor(
    private readonly counter: AttemptCounter,
    private readonly limits: UserCodeLimits,
  ) {}

  async reserve(clientAddress: string): Promise<UserCodeAttempt> {
    const { counter, limits } = this;
    const address = `device-user-code:address:${addressLimitKey(clientAddress, limits.ipv6Prefix)}`;
    const byAddress = await counter.reserveAttempt(address, limits.perAddress, WINDOW_SECONDS);
    if (!byAddress.reserved) return { reserved: false, retryAfterSeconds: byAddress.retryAfterSeconds };
    let overall;
    try {
      overall = await counter.reserveAttempt(EVERYONE, limits.perAddress * ALL_ADDRESSES_FACTOR, WINDOW_SECONDS);
    } catch (err) {
      await counter.releaseAttempt(address).catch(() => undefined);
      throw err;
    }
    if (!overall.reserved) {
      await counter.releaseAttempt(address);
      return { reserved: false, retryAfterSeconds: overall.retryAfterSeconds };
    }
    return {
      reserved: true,
      settle: async (found) => {
        const settle = (key: string) => (found ? counter.releaseAttempt(key) : counter.keepAttempt(key));
        await Promise.all([settle(address), settle(EVERYONE)]);
      },
    };
  }
}

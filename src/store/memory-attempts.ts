import type { Clock } from '../clock.js';
import { type Expiring, ExpiringMap } from './expiring-map.js';
import { ATTEMPT_IN_FLIGHT_SECONDS, type AttemptCounter, type AttemptReservation } from './types.js';
import { secondsLeft } from './window.js';

interface CountEntry extends Expiring {
  count: number;
}

/**
 * Attempt counters as Redis keeps them (src/store/lua-attempts.ts): per key, the attempts
 * counted in the window, and apart, those of them still in flight (with a lifetime of
 * their own). JavaScript runs one call at a time, so each method is one atomic step.
 */
export class MemoryAttemptCounter implements AttemptCounter {
  private readonly counted: ExpiringMap<CountEntry>;
  private readonly inFlight: ExpiringMap<CountEntry>;

  constructor(private readonly clock: Clock) {
    this.counted = new ExpiringMap(clock);
    this.inFlight = new ExpiringMap(clock);
  }

  async reserveAttempt(key: string, limit: number, windowSeconds: number): Promise<AttemptReservation> {
    const entry = this.counted.get(key);
    const checking = this.inFlight.get(key)?.count ?? 0;
    if (entry && entry.count >= limit) {
      const inFlight = checking > 0 && entry.count - checking < limit;
      return { reserved: false, retryAfterSeconds: secondsLeft(entry.expiresAt - this.clock()), inFlight };
    }
    if (entry) entry.count += 1;
    else this.counted.set(key, { count: 1, expiresAt: this.expiry(windowSeconds) });
    this.inFlight.set(key, { count: checking + 1, expiresAt: this.expiry(ATTEMPT_IN_FLIGHT_SECONDS) });
    return { reserved: true };
  }

  async keepAttempt(key: string): Promise<void> {
    decrement(this.inFlight, key);
  }

  async releaseAttempt(key: string): Promise<void> {
    decrement(this.counted, key);
    decrement(this.inFlight, key);
  }

  async clearAttempts(key: string): Promise<void> {
    decrement(this.inFlight, key);
    const checking = this.inFlight.get(key)?.count ?? 0;
    const entry = this.counted.get(key);
    if (entry && checking > 0) entry.count = Math.min(entry.count, checking);
    else this.counted.delete(key);
  }

  maps(): ExpiringMap<Expiring>[] {
    return [this.counted, this.inFlight];
  }

  private expiry(seconds: number): number {
    return this.clock() + seconds * 1000;
  }
}

/** One less; the last one deletes the entry instead of leaving a zero. */
function decrement(map: ExpiringMap<CountEntry>, key: string): void {
  const entry = map.get(key);
  if (entry && entry.count > 1) entry.count -= 1;
  else map.delete(key);
}

import type { ScriptCommands } from './redis-scripts.js';
import { ATTEMPT_IN_FLIGHT_SECONDS, type AttemptCounter, type AttemptReservation } from './types.js';
import { secondsLeft } from './window.js';

/**
 * Attempt counters in Redis: the count and its attempts in flight, two keys under the
 * counter's hash tag, each operation one script (src/store/lua-attempts.ts).
 */
export class RedisAttemptCounter implements AttemptCounter {
  constructor(private readonly redis: ScriptCommands) {}

  async reserveAttempt(key: string, limit: number, windowSeconds: number): Promise<AttemptReservation> {
    const [reserved, ttlMs, inFlight] = await this.redis.call('reserve attempt', () =>
      this.redis.script<[0 | 1, number, 0 | 1]>('reserveAttempt', this.keysOf(key), [
        limit,
        windowSeconds * 1000,
        ATTEMPT_IN_FLIGHT_SECONDS * 1000,
      ]),
    );
    return reserved === 1 ? { reserved: true } : { reserved: false, retryAfterSeconds: secondsLeft(ttlMs), inFlight: inFlight === 1 };
  }

  async keepAttempt(key: string): Promise<void> {
    await this.redis.call('keep attempt', () => this.redis.script('keepAttempt', [this.redis.keys.attemptsInFlight(key)], []));
  }

  async releaseAttempt(key: string): Promise<void> {
    await this.redis.call('release attempt', () => this.redis.script('releaseAttempt', this.keysOf(key), []));
  }

  async clearAttempts(key: string): Promise<void> {
    await this.redis.call('clear attempts', () => this.redis.script('clearAttempts', this.keysOf(key), []));
  }

  private keysOf(key: string): string[] {
    return [this.redis.keys.attempts(key), this.redis.keys.attemptsInFlight(key)];
  }
}

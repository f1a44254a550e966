import type { Test } from 'tap';
import { MemoryStore } from '../../src/store/memory.js';
import type { Store } from '../../src/store/types.js';

/** The injected clock, in milliseconds since the epoch; the store and the server read it. */
export interface TestClock {
  now: number;
}

/** A fresh, empty store with its own clock, closed when its test ends. */
export interface TestStore {
  readonly store: Store;
  readonly clock: TestClock;
  /**
   * Moves the clock `seconds` forward and lets the store's keys age by as much: Redis
   * TTLs are shortened (a key with nothing left is deleted), so no test sleeps for a TTL.
   */
  advance(seconds: number): Promise<void>;
}

/** How shared suites (test/suites/) get their store: memoryStore or redisStore. */
export type OpenStore = (t: Test) => Promise<TestStore>;

export async function memoryStore(t: Test): Promise<TestStore> {
  const clock = { now: Date.now() };
  const store = new MemoryStore(() => clock.now);
  t.teardown(() => store.close());
  return {
    store,
    clock,
    advance: async (seconds) => {
      clock.now += seconds * 1000;
    },
  };
}

import type { Test } from 'tap';
import { ATTEMPT_IN_FLIGHT_SECONDS } from '../../src/store/types.js';
import type { OpenStore } from '../helpers/stores.js';

/** Attempt counters (sign-in limits, registration rate limit), the same on every store. */
export function attemptCounterContract(t: Test, name: string, open: OpenStore): void {
  t.test(`${name}: attempt counters`, async (t) => {
    t.test('reserves up to the limit in a window that opens at the first attempt, then refuses', async (t) => {
      const { store, advance } = await open(t);
      t.same(await store.attempts.reserveAttempt('username:alice', 2, 3), { reserved: true });
      await store.attempts.keepAttempt('username:alice');
      await advance(1.1);
      t.same(await store.attempts.reserveAttempt('username:alice', 2, 3), { reserved: true });
      await store.attempts.keepAttempt('username:alice');
      t.same(
        await store.attempts.reserveAttempt('username:alice', 2, 3),
        { reserved: false, retryAfterSeconds: 2, inFlight: false },
        'the window opened at the first',
      );
      t.same(await store.attempts.reserveAttempt('username:bob', 2, 3), { reserved: true }, 'per key');
      t.same(await store.attempts.reserveAttempt('username:alice', 5, 3), { reserved: true }, 'the limit is the caller’s');
      await store.attempts.keepAttempt('username:alice');
      await advance(2.1);
      t.same(await store.attempts.reserveAttempt('username:alice', 1, 3), { reserved: true }, 'the window closed: counting starts again');
      await store.attempts.keepAttempt('username:alice');
      t.same(await store.attempts.reserveAttempt('username:alice', 1, 3), { reserved: false, retryAfterSeconds: 3, inFlight: false });
    });

    t.test('a refusal says whether attempts still in flight hold the limit: the reason is read in the reserving step', async (t) => {
      const { store } = await open(t);
      const key = 'username:carol';
      t.same(await store.attempts.reserveAttempt(key, 2, 60), { reserved: true });
      t.same(await store.attempts.reserveAttempt(key, 2, 60), { reserved: true });
      t.same(await store.attempts.reserveAttempt(key, 2, 60), { reserved: false, retryAfterSeconds: 60, inFlight: true }, 'two in flight');
      await store.attempts.keepAttempt(key);
      t.same(
        await store.attempts.reserveAttempt(key, 2, 60),
        { reserved: false, retryAfterSeconds: 60, inFlight: true },
        'one kept (a failure), one in flight: giving that one back would free a place',
      );
      await store.attempts.keepAttempt(key);
      t.same(await store.attempts.reserveAttempt(key, 2, 60), { reserved: false, retryAfterSeconds: 60, inFlight: false }, 'two kept');
      await store.attempts.keepAttempt(key);
      await store.attempts.keepAttempt('username:nobody');
      t.same(await store.attempts.reserveAttempt(key, 3, 60), { reserved: true }, 'keeping more than are in flight counts nothing more');
      t.same(await store.attempts.reserveAttempt(key, 3, 60), { reserved: false, retryAfterSeconds: 60, inFlight: true });
    });

    t.test('a released reservation is given back; clearing forgets every settled attempt but not those in flight', async (t) => {
      const { store } = await open(t);
      const key = 'address:192.0.2.1';
      await store.attempts.reserveAttempt(key, 2, 60);
      await store.attempts.reserveAttempt(key, 2, 60);
      await store.attempts.releaseAttempt(key);
      t.same(await store.attempts.reserveAttempt(key, 2, 60), { reserved: true });
      t.same(await store.attempts.reserveAttempt(key, 2, 60), { reserved: false, retryAfterSeconds: 60, inFlight: true });
      await store.attempts.keepAttempt(key);
      t.same(await store.attempts.reserveAttempt(key, 3, 60), { reserved: true }, 'one kept, two in flight');
      await store.attempts.clearAttempts(key);
      t.same(
        await store.attempts.reserveAttempt(key, 2, 60),
        { reserved: true },
        'the kept one is forgotten, the one still in flight is not',
      );
      t.same(await store.attempts.reserveAttempt(key, 2, 60), { reserved: false, retryAfterSeconds: 60, inFlight: true });
      await store.attempts.clearAttempts(key);
      await store.attempts.clearAttempts(key);
      t.same(await store.attempts.reserveAttempt(key, 1, 60), { reserved: true }, 'nothing in flight: cleared to zero');
      await store.attempts.releaseAttempt(key);
      await store.attempts.releaseAttempt(key);
      await store.attempts.releaseAttempt('address:192.0.2.9');
      t.same(await store.attempts.reserveAttempt(key, 1, 60), { reserved: true }, 'releasing below zero gives nothing extra');
      t.same(await store.attempts.reserveAttempt(key, 1, 60), { reserved: false, retryAfterSeconds: 60, inFlight: true });
    });

    t.test(`an attempt left in flight (a check whose end was lost) counts as settled after ${ATTEMPT_IN_FLIGHT_SECONDS} s`, async (t) => {
      const { store, advance } = await open(t);
      await store.attempts.reserveAttempt('username:dave', 1, 900);
      t.same(await store.attempts.reserveAttempt('username:dave', 1, 900), { reserved: false, retryAfterSeconds: 900, inFlight: true });
      await advance(ATTEMPT_IN_FLIGHT_SECONDS - 1);
      t.same(await store.attempts.reserveAttempt('username:dave', 1, 900), {
        reserved: false,
        retryAfterSeconds: 900 - ATTEMPT_IN_FLIGHT_SECONDS + 1,
        inFlight: true,
      });
      await advance(1);
      t.same(
        await store.attempts.reserveAttempt('username:dave', 1, 900),
        { reserved: false, retryAfterSeconds: 900 - ATTEMPT_IN_FLIGHT_SECONDS, inFlight: false },
        'a failure now, for the rest of the window',
      );
    });

    t.test('of 60 concurrent reservations, exactly the limit are granted; the rest are told they are in flight', async (t) => {
      const { store } = await open(t);
      const outcomes = await Promise.all(Array.from({ length: 60 }, () => store.attempts.reserveAttempt('username:erin', 5, 60)));
      t.equal(outcomes.filter((o) => o.reserved).length, 5);
      t.same(
        outcomes.filter((o) => !o.reserved),
        new Array(55).fill({ reserved: false, retryAfterSeconds: 60, inFlight: true }),
      );
    });
  });
}

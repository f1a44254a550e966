import type { Test } from 'tap';
import type { AttemptCounter } from '../../src/store/types.js';
import { PasswordSignIn } from '../../src/users/sign-in.js';
import { type InFlightWait, type SignInLimits, SignInThrottle } from '../../src/users/sign-in-throttle.js';
import { VerificationSlots } from '../../src/users/verification-slots.js';
import { ALICE, testUsers } from '../helpers/authorize-fixtures.js';
import { CountingAuthenticator, until } from '../helpers/sign-in.js';
import type { OpenStore } from '../helpers/stores.js';
import { warmPasswordThreads } from '../helpers/passwords.js';

const LIMITS: SignInLimits = { maxPerUsername: 5, maxPerAddress: 20, windowSeconds: 900, ipv6LimitPrefix: 64 };
const UNLIMITED_SLOTS = { concurrency: 1000, queue: 0 };

/** A wait for checks in flight long enough that only a finished check ends it. */
const PATIENT: InFlightWait = { maxMs: 10_000, pollMs: 50 };

/** PasswordSignIn over `counter`, its password checks counted (`wait`: the default, half a second). */
export function signInService(counter: AttemptCounter, limits: Partial<SignInLimits> = {}, slots = UNLIMITED_SLOTS, wait?: InFlightWait) {
  const counting = new CountingAuthenticator(testUsers(200));
  const signIn = new PasswordSignIn(
    counting,
    new SignInThrottle(counter, { ...LIMITS, ...limits }, wait),
    new VerificationSlots(slots.concurrency, slots.queue),
  );
  return { signIn, counting };
}

/** Whether `promise` is still pending after a few turns of the event loop. */
async function pending(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  void promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  for (let i = 0; i < 20; i += 1) await new Promise((resolve) => setImmediate(resolve));
  return !settled;
}

const tally = (outcomes: readonly { outcome: string }[]) =>
  outcomes.reduce<Record<string, number>>((counts, { outcome }) => {
    counts[outcome] = (counts[outcome] ?? 0) + 1;
    return counts;
  }, {});

/** The same behaviour on every store: the limits hold in one process and across instances. */
export function signInLimitsSuite(t: Test, name: string, open: OpenStore): void {
  t.before(warmPasswordThreads);
  t.test(`${name}: 60 concurrent wrong passwords for one username: exactly LOGIN_MAX_FAILURES are checked`, async (t) => {
    const { signIn, counting } = signInService((await open(t)).store.attempts);
    const outcomes = await Promise.all(Array.from({ length: 60 }, (_, i) => signIn.attempt('alice', `wrong-${i}`, `198.51.100.${i}`)));
    t.equal(counting.verifications, 5);
    t.same(tally(outcomes), { wrong_credentials: 5, throttled: 55 });
    t.same(
      outcomes.find((o) => o.outcome === 'throttled'),
      { outcome: 'throttled', retryAfterSeconds: 900 },
    );
    t.same(
      await signIn.attempt('ALICE', ALICE.password, '192.0.2.1'),
      { outcome: 'throttled', retryAfterSeconds: 900 },
      'the username counts case-insensitively',
    );
    t.equal(counting.verifications, 5);
  });

  t.test(`${name}: the right password inside a burst of wrong ones does not get through once the limit is reached`, async (t) => {
    const { signIn, counting } = signInService((await open(t)).store.attempts);
    const burst = [...Array.from({ length: 59 }, (_, i) => ['alice', `wrong-${i}`]), [ALICE.username, ALICE.password]] as const;
    const outcomes = await Promise.all(burst.map(([username, password], i) => signIn.attempt(username, password, `198.51.100.${i}`)));
    t.equal(counting.verifications, 5);
    t.same(outcomes.at(-1), { outcome: 'throttled', retryAfterSeconds: 900 });
    t.same(tally(outcomes), { wrong_credentials: 5, throttled: 55 });
  });

  t.test(
    `${name}: attempts still being checked hold the limit: a further one waits half a second for one, then is told to retry in 1 s`,
    async (t) => {
      const { signIn, counting } = signInService((await open(t)).store.attempts);
      counting.hold();
      const inFlight = Array.from({ length: 5 }, (_, i) => signIn.attempt('alice', `wrong-${i}`, `198.51.100.${i}`));
      await until(() => counting.verifications === 5, 'five checks in flight');
      const started = performance.now();
      t.same(
        await signIn.attempt(ALICE.username, ALICE.password, '192.0.2.1'),
        { outcome: 'checks_in_flight', retryAfterSeconds: 1 },
        'refused while five are in flight, not for failures',
      );
      const waited = performance.now() - started;
      t.ok(waited >= 490 && waited < 1000, `waited ${Math.round(waited)} ms for a check to finish`);
      counting.release();
      t.same(tally(await Promise.all(inFlight)), { wrong_credentials: 5 });
      t.same(
        await signIn.attempt(ALICE.username, ALICE.password, '192.0.2.1'),
        { outcome: 'throttled', retryAfterSeconds: 900 },
        'once they failed: refused for the window, at once',
      );
      t.equal(counting.verifications, 5);
    },
  );

  t.test(`${name}: six parallel sign-ins of one account (a service account): the sixth waits for a check and signs in`, async (t) => {
    const { signIn, counting } = signInService((await open(t)).store.attempts, {}, UNLIMITED_SLOTS, PATIENT);
    counting.hold();
    const burst = Array.from({ length: 6 }, () => signIn.attempt(ALICE.username, ALICE.password, '192.0.2.1'));
    await until(() => counting.verifications === 5, 'five checks in flight');
    t.ok(await pending(Promise.race(burst)), 'no answer while the five are checked: the sixth waits');
    counting.release();
    t.same(tally(await Promise.all(burst)), { signed_in: 6 });
    t.equal(counting.verifications, 6);
  });

  t.test(`${name}: a waiting attempt is refused for failures as soon as the checks it waited for failed`, async (t) => {
    const { signIn, counting } = signInService((await open(t)).store.attempts, {}, UNLIMITED_SLOTS, PATIENT);
    counting.hold();
    const inFlight = Array.from({ length: 5 }, (_, i) => signIn.attempt('alice', `wrong-${i}`, `198.51.100.${i}`));
    await until(() => counting.verifications === 5, 'five checks in flight');
    const waiting = signIn.attempt(ALICE.username, ALICE.password, '192.0.2.1');
    t.ok(await pending(waiting), 'waiting');
    counting.release();
    const started = performance.now();
    t.same(await waiting, { outcome: 'throttled', retryAfterSeconds: 900 });
    t.ok(performance.now() - started < PATIENT.maxMs / 2, 'woken by the checks, long before its wait ran out');
    t.same(tally(await Promise.all(inFlight)), { wrong_credentials: 5 });
  });

  t.test(`${name}: the address limit too: checks in flight from one address hold it, failures keep it`, async (t) => {
    const { signIn, counting } = signInService((await open(t)).store.attempts, { maxPerAddress: 2 });
    counting.hold();
    const inFlight = [0, 1].map((i) => signIn.attempt(`user-${i}`, 'wrong', '203.0.113.5'));
    await until(() => counting.verifications === 2, 'two checks in flight');
    t.same(await signIn.attempt('user-2', 'password-2', '203.0.113.5'), { outcome: 'checks_in_flight', retryAfterSeconds: 1 });
    counting.release();
    t.same(tally(await Promise.all(inFlight)), { wrong_credentials: 2 });
    t.same(await signIn.attempt('user-2', 'password-2', '203.0.113.5'), { outcome: 'throttled', retryAfterSeconds: 900 });
  });

  t.test(`${name}: checks in flight at another instance: the waiter sees them finish by asking the store again`, async (t) => {
    const { store } = await open(t);
    const a = signInService(store.attempts);
    const b = signInService(store.attempts, {}, UNLIMITED_SLOTS, PATIENT);
    a.counting.hold();
    const atA = Array.from({ length: 5 }, () => a.signIn.attempt(ALICE.username, ALICE.password, '192.0.2.1'));
    await until(() => a.counting.verifications === 5, 'five checks in flight at A');
    const atB = b.signIn.attempt(ALICE.username, ALICE.password, '192.0.2.2');
    t.ok(await pending(atB), 'B waits');
    a.counting.release();
    t.match(await atB, { outcome: 'signed_in', user: { sub: 'user-alice' } });
    t.same(tally(await Promise.all(atA)), { signed_in: 5 });
  });

  t.test(`${name}: one address spraying 200 usernames: at most LOGIN_MAX_FAILURES_PER_IP are checked`, async (t) => {
    const { signIn, counting } = signInService((await open(t)).store.attempts);
    const outcomes = await Promise.all(Array.from({ length: 200 }, (_, i) => signIn.attempt(`user-${i}`, 'Summer2026!', '192.0.2.66')));
    t.equal(counting.verifications, 20);
    t.same(tally(outcomes), { wrong_credentials: 20, throttled: 180 });
    const other = await signIn.attempt('user-7', 'password-7', '192.0.2.67');
    t.match(other, { outcome: 'signed_in', user: { username: 'user-7' } }, 'another address signs in');
  });

  t.test(`${name}: success clears the username's failures and gives the address reservation back`, async (t) => {
    const { signIn, counting } = signInService((await open(t)).store.attempts, { maxPerUsername: 3, maxPerAddress: 3 });
    for (const i of [1, 2]) t.same(await signIn.attempt('alice', `wrong-${i}`, '203.0.113.1'), { outcome: 'wrong_credentials' });
    t.match(await signIn.attempt('alice', ALICE.password, '203.0.113.1'), { outcome: 'signed_in', user: { sub: 'user-alice' } });
    const next = await Promise.all([1, 2, 3, 4].map((i) => signIn.attempt('alice', `again-${i}`, `203.0.113.${10 + i}`)));
    t.same(tally(next), { wrong_credentials: 3, throttled: 1 }, 'the username starts again from zero');
    t.same(
      await signIn.attempt('bob', 'x', '203.0.113.1'),
      { outcome: 'wrong_credentials' },
      'the address kept its two failures, not the success',
    );
    t.same(await signIn.attempt('bob', 'x', '203.0.113.1'), { outcome: 'throttled', retryAfterSeconds: 900 });
    t.equal(counting.verifications, 7);
  });

  t.test(`${name}: past the verification cap, attempts are refused at once and their reservations given back`, async (t) => {
    const { signIn, counting } = signInService((await open(t)).store.attempts, { maxPerUsername: 1 }, { concurrency: 2, queue: 1 });
    counting.hold();
    const started = Date.now();
    const attempts = Array.from({ length: 10 }, (_, i) => signIn.attempt(`user-${i}`, `password-${i}`, `198.51.100.${i}`));
    const refused = await Promise.all(attempts.slice(3));
    const elapsed = Date.now() - started;
    t.same(tally(refused), { busy: 7 }, 'answered while the admitted checks are still held');
    t.same(refused[0], { outcome: 'busy', retryAfterSeconds: 1 });
    t.ok(elapsed < 500, `refused in ${elapsed} ms`);
    t.equal(counting.verifications, 2, 'two checks run, one waits for a slot');
    counting.release();
    t.same(tally(await Promise.all(attempts.slice(0, 3))), { signed_in: 3 });
    const retried = [];
    for (const i of [3, 4, 5, 6, 7, 8, 9]) retried.push(await signIn.attempt(`user-${i}`, `password-${i}`, `198.51.100.${i}`));
    t.same(tally(retried), { signed_in: 7 }, 'a refused attempt was not counted (the limit per username is 1)');
  });

  t.test(`${name}: the window: refused until it closes, then counted afresh`, async (t) => {
    const { store, advance } = await open(t);
    const { signIn } = signInService(store.attempts, { maxPerUsername: 1, windowSeconds: 60 });
    t.same(await signIn.attempt('alice', 'wrong', '192.0.2.1'), { outcome: 'wrong_credentials' });
    await advance(45);
    t.same(await signIn.attempt(ALICE.username, ALICE.password, '192.0.2.1'), { outcome: 'throttled', retryAfterSeconds: 15 });
    await advance(15);
    t.match(await signIn.attempt(ALICE.username, ALICE.password, '192.0.2.1'), { outcome: 'signed_in' });
  });
}

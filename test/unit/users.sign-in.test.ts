import t, { type Test } from 'tap';
import { StoreUnavailableError } from '../../src/errors/index.js';
import type { AttemptCounter } from '../../src/store/types.js';
import type { SecurityEvent } from '../../src/events/types.js';
import { PasswordSignIn } from '../../src/users/sign-in.js';
import { SignInThrottle } from '../../src/users/sign-in-throttle.js';
import { VerificationSlots } from '../../src/users/verification-slots.js';
import { ALICE, testUsers } from '../helpers/authorize-fixtures.js';
import { CountingAuthenticator, until } from '../helpers/sign-in.js';
import { memoryStore } from '../helpers/stores.js';
import { signInLimitsSuite, signInService } from '../suites/sign-in-service.js';

signInLimitsSuite(t, 'MemoryStore', memoryStore);

t.test('fail closed: when the store fails, no one signs in', async (t) => {
  /** A memory store whose attempt counters fail for the chosen operation and key. */
  async function faultyStore(t: Test, fails: (operation: string, key: string) => boolean) {
    const { store } = await memoryStore(t);
    const counter: AttemptCounter = {
      reserveAttempt: (key, limit, window) =>
        fails('reserve', key) ? Promise.reject(new StoreUnavailableError('down')) : store.attempts.reserveAttempt(key, limit, window),
      keepAttempt: (key) => (fails('keep', key) ? Promise.reject(new StoreUnavailableError('down')) : store.attempts.keepAttempt(key)),
      releaseAttempt: (key) =>
        fails('release', key) ? Promise.reject(new StoreUnavailableError('down')) : store.attempts.releaseAttempt(key),
      clearAttempts: (key) => (fails('clear', key) ? Promise.reject(new StoreUnavailableError('down')) : store.attempts.clearAttempts(key)),
    };
    return { store, counter };
  }

  t.test('the address reservation is not acknowledged: nothing is checked', async (t) => {
    const { counter } = await faultyStore(t, (operation, key) => operation === 'reserve' && key.startsWith('address:'));
    const { signIn, counting } = signInService(counter);
    await t.rejects(signIn.attempt(ALICE.username, ALICE.password, '192.0.2.1'), StoreUnavailableError);
    t.equal(counting.verifications, 0);
  });

  t.test('the username reservation is not acknowledged: nothing is checked, the address reservation is given back', async (t) => {
    const { store, counter } = await faultyStore(t, (operation, key) => operation === 'reserve' && key.startsWith('username:'));
    const { signIn, counting } = signInService(counter, { maxPerAddress: 1 });
    await t.rejects(signIn.attempt(ALICE.username, ALICE.password, '192.0.2.1'), StoreUnavailableError);
    t.equal(counting.verifications, 0);
    t.same(await store.attempts.reserveAttempt('address:192.0.2.1', 1, 60), { reserved: true }, 'nothing left counted on the address');
  });

  t.test('a wrong password whose failure is not acknowledged: the answer stands, the attempt stays counted', async (t) => {
    const { store, counter } = await faultyStore(t, (operation) => operation === 'keep');
    const { signIn } = signInService(counter, { maxPerUsername: 1 });
    t.same(await signIn.attempt('alice', 'wrong', '192.0.2.1'), { outcome: 'wrong_credentials' });
    t.same(
      await store.attempts.reserveAttempt('username:alice', 1, 60),
      { reserved: false, retryAfterSeconds: 900, inFlight: true },
      'counted; taken for in flight until ATTEMPT_IN_FLIGHT_SECONDS',
    );
  });

  t.test('the right password, but the success is not acknowledged: no sign-in', async (t) => {
    const { counter } = await faultyStore(t, (operation) => operation === 'clear');
    const { signIn, counting } = signInService(counter);
    await t.rejects(signIn.attempt(ALICE.username, ALICE.password, '192.0.2.1'), StoreUnavailableError);
    t.equal(counting.verifications, 1);
  });
});

t.test('signin.throttled says when attempts in flight, not failures, held the limit', async (t) => {
  const { store } = await memoryStore(t);
  const seen: SecurityEvent[] = [];
  const counting = new CountingAuthenticator(testUsers());
  const limits = { maxPerUsername: 1, maxPerAddress: 20, windowSeconds: 900, ipv6LimitPrefix: 64 };
  const noWait = { maxMs: 0, pollMs: 0 };
  const signIn = new PasswordSignIn(counting, new SignInThrottle(store.attempts, limits, noWait), new VerificationSlots(4, 0), {
    emit: (event) => seen.push(event),
  });
  counting.hold();
  const held = signIn.attempt('alice', 'wrong', '192.0.2.1', 'password_grant');
  await until(() => counting.verifications === 1, 'a check in flight');
  t.same(await signIn.attempt(ALICE.username, ALICE.password, '192.0.2.2', 'password_grant'), {
    outcome: 'checks_in_flight',
    retryAfterSeconds: 1,
  });
  counting.release();
  t.same(await held, { outcome: 'wrong_credentials' });
  t.same(await signIn.attempt(ALICE.username, ALICE.password, '192.0.2.3', 'login_page'), { outcome: 'throttled', retryAfterSeconds: 900 });
  t.same(
    seen.filter((event) => event.event === 'signin.throttled'),
    [
      { event: 'signin.throttled', channel: 'password_grant', address: '192.0.2.2', retryAfterSeconds: 1, checksInFlight: true },
      { event: 'signin.throttled', channel: 'login_page', address: '192.0.2.3', retryAfterSeconds: 900 },
    ],
  );
});

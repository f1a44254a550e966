import t, { type Test } from 'tap';
import { StoreUnavailableError } from '../../src/errors.js';
import type { AttemptCounter } from '../../src/store/types.js';
import { ALICE } from '../helpers/authorize-fixtures.js';
import { memoryStore } from '../helpers/stores.js';
import { signInLimitsSuite, signInService } from '../suites/sign-in-service.js';

signInLimitsSuite(t, 'MemoryStore', memoryStore);

t.test('fail closed: when the store fails, no one signs in', async (t) => {
  /** A memory store whose attempt counters fail for the chosen operation and key. */
  async function faultyStore(t: Test, fails: (operation: string, key: string) => boolean) {
    const { store } = await memoryStore(t);
    const counter: AttemptCounter = {
      reserveAttempt: (key, limit, window) =>
        fails('reserve', key) ? Promise.reject(new StoreUnavailableError('down')) : store.reserveAttempt(key, limit, window),
      releaseAttempt: (key) => (fails('release', key) ? Promise.reject(new StoreUnavailableError('down')) : store.releaseAttempt(key)),
      clearAttempts: (key) => (fails('clear', key) ? Promise.reject(new StoreUnavailableError('down')) : store.clearAttempts(key)),
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
    t.same(await store.reserveAttempt('address:192.0.2.1', 1, 60), { reserved: true }, 'nothing left counted on the address');
  });

  t.test('the right password, but the success is not acknowledged: no sign-in', async (t) => {
    const { counter } = await faultyStore(t, (operation) => operation === 'clear');
    const { signIn, counting } = signInService(counter);
    await t.rejects(signIn.attempt(ALICE.username, ALICE.password, '192.0.2.1'), StoreUnavailableError);
    t.equal(counting.verifications, 1);
  });
});

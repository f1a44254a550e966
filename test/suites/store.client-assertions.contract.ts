import type { Test } from 'tap';
import type { OpenStore } from '../helpers/stores.js';

/** The replay cache of client assertions (private_key_jwt, RFC 7523 §3), the same on every store. */
export function clientAssertionReplayContract(t: Test, name: string, open: OpenStore): void {
  t.test(`${name}: client assertion replay cache (RFC 7523 §3, OpenID Connect Core §9)`, async (t) => {
    t.test('an assertion is accepted once, then refused until its window has passed', async (t) => {
      const { store, advance } = await open(t);
      t.equal(await store.rememberClientAssertion('service', 'jti-1', 2), true, 'first presentation');
      t.equal(await store.rememberClientAssertion('service', 'jti-1', 2), false, 'a replay');
      await advance(1.5);
      t.equal(await store.rememberClientAssertion('service', 'jti-1', 2), false, 'still remembered inside the window');
      await advance(0.7);
      t.equal(await store.rememberClientAssertion('service', 'jti-1', 2), true, 'forgotten once the window has passed');
    });

    t.test('a jti is scoped by the client; any characters and lengths are safe in both', async (t) => {
      const { store } = await open(t);
      t.equal(await store.rememberClientAssertion('service', 'same', 60), true);
      t.equal(await store.rememberClientAssertion('poster', 'same', 60), true, 'another client may use the same jti');
      const oddClient = `https://client.example/{tag}/${'c'.repeat(300)}`;
      const oddJti = `{tag}:*\n ${'x'.repeat(300)}`;
      t.equal(await store.rememberClientAssertion(oddClient, oddJti, 60), true);
      t.equal(await store.rememberClientAssertion(oddClient, oddJti, 60), false);
      t.equal(await store.rememberDpopProof('service', 'same', 60), true, 'DPoP proofs are another cache');
    });

    t.test('of 40 concurrent presentations of one assertion exactly one is accepted', async (t) => {
      const { store } = await open(t);
      const outcomes = await Promise.all(Array.from({ length: 40 }, () => store.rememberClientAssertion('service', 'raced', 60)));
      t.equal(outcomes.filter(Boolean).length, 1);
    });
  });
}

import type { Test } from 'tap';
import { newGrantId } from '../../src/tokens/opaque.js';
import type { OpenStore } from '../helpers/stores.js';

/** What sign-in through upstream providers keeps, as every store keeps it (src/store/upstream-types.ts). */
export function upstreamStoreContract(t: Test, name: string, open: OpenStore): void {
  t.test(`${name}: upstream sign-ins, profiles and tokens`, async (t) => {
    t.test('a sign-in in progress is taken once, by its binding only, until it expires', async (t) => {
      const { store, advance } = await open(t);
      await store.upstream.saveUpstreamSignIn('digest-one', 'binding-one', 'sealed-one', 600);
      await store.upstream.saveUpstreamSignIn('digest-two', 'binding-two', 'sealed-two', 600);
      t.equal(await store.upstream.takeUpstreamSignIn('digest-one', 'binding-two'), 'elsewhere', 'another binding');
      t.equal(await store.upstream.takeUpstreamSignIn('digest-one', ''), 'elsewhere');
      t.same(await store.upstream.takeUpstreamSignIn('digest-one', 'binding-one'), { sealed: 'sealed-one' }, 'left for its own binding');
      t.equal(await store.upstream.takeUpstreamSignIn('digest-one', 'binding-one'), 'unknown', 'taken: gone');
      t.equal(await store.upstream.takeUpstreamSignIn('digest-one', 'binding-two'), 'unknown');
      t.equal(await store.upstream.takeUpstreamSignIn('unknown', 'binding-one'), 'unknown');
      await advance(601);
      t.equal(await store.upstream.takeUpstreamSignIn('digest-two', 'binding-two'), 'unknown', 'expired');
    });

    t.test('of concurrent takes of one sign-in, exactly one with its binding gets it, whatever the others present', async (t) => {
      const { store } = await open(t);
      await store.upstream.saveUpstreamSignIn('raced', 'mine', 'sealed', 600);
      const taken = await Promise.all(
        Array.from({ length: 20 }, (_, i) => store.upstream.takeUpstreamSignIn('raced', i % 2 === 0 ? 'theirs' : 'mine')),
      );
      t.same(
        taken.filter((v) => typeof v === 'object'),
        [{ sealed: 'sealed' }],
      );
      const winner = taken.findIndex((v) => typeof v === 'object');
      t.equal(winner % 2, 1, 'taken by a callback with its binding');
    });

    t.test("a federated user's profile is replaced at each sign-in and kept its TTL", async (t) => {
      const { store, advance } = await open(t);
      const sub = 'fed_abc';
      t.equal(await store.upstream.findFederatedProfile(sub), undefined);
      await store.upstream.saveFederatedProfile(sub, { email: 'a@example.com', email_verified: true }, 100, 'corp');
      await store.upstream.saveFederatedProfile(sub, { email: 'b@example.com', email_verified: false, name: 'B' }, 100, 'corp');
      t.same(await store.upstream.findFederatedProfile(sub), { email: 'b@example.com', email_verified: false, name: 'B' });
      t.equal(await store.upstream.findFederatedProfile('fed_other'), undefined);
      await advance(101);
      t.equal(await store.upstream.findFederatedProfile(sub), undefined, 'expired');
    });

    t.test('federated users are listed by sub while their profile is kept: provider and last sign-in, paged', async (t) => {
      const { store, clock, advance } = await open(t);
      const upstream = store.upstream;
      t.same(await upstream.listFederatedUsers({ limit: 10 }), { users: [] });
      t.equal(await upstream.countFederatedUsers(), 0, 'none counted');
      const firstSignIn = Math.floor(clock.now / 1000);
      for (const sub of ['fed_c', 'fed_a', 'fed_b']) await upstream.saveFederatedProfile(sub, { name: sub }, 100, 'corp');
      await advance(50);
      await upstream.saveFederatedProfile('fed_b', { name: 'again' }, 100, 'github');
      t.equal(await upstream.countFederatedUsers(), 3, 'a user who signs in again counts once');
      const signedInAgain = Math.floor(clock.now / 1000);
      const expiry = (signedInAt: number) => (signedInAt + 100) * 1000;
      const first = await upstream.listFederatedUsers({ limit: 2 });
      t.same(
        first.users.map((u) => [u.sub, u.provider, u.lastSignInAt]),
        [
          ['fed_a', 'corp', firstSignIn],
          ['fed_b', 'github', signedInAgain],
        ],
        'in the order of their subs; the last sign-in and its provider',
      );
      t.equal(first.next, 'fed_b');
      t.ok(Math.abs((first.users[1]?.expiresAt ?? 0) - expiry(signedInAgain)) < 1000, 'expires with the profile');
      await upstream.saveFederatedProfile('fed_aa', { name: 'added meanwhile' }, 100, 'corp');
      const second = await upstream.listFederatedUsers({ after: first.next, limit: 2 });
      t.same(second, { users: [second.users[0]] }, 'the last page has no next');
      t.same(
        second.users.map((u) => u.sub),
        ['fed_c'],
        'one added before the cursor is not listed on a later page',
      );
      t.same((await upstream.findFederatedUser('fed_b'))?.provider, 'github');
      t.equal(await upstream.findFederatedUser('fed_nobody'), undefined);
      await advance(51);
      t.equal(await upstream.countFederatedUsers(), 2, 'one whose profile expired counts no more, before any page prunes it');
      t.same(
        (await upstream.listFederatedUsers({ limit: 10 })).users.map((u) => u.sub),
        ['fed_aa', 'fed_b'],
        'a user whose profile expired is listed no more',
      );
      t.equal(await upstream.findFederatedUser('fed_a'), undefined);
      await advance(50);
      t.equal(await upstream.countFederatedUsers(), 0);
      t.same(await upstream.listFederatedUsers({ limit: 10 }), { users: [] });
    });

    t.test("a session's upstream tokens: saved, read, replaced keeping their expiry, deleted", async (t) => {
      const { store, advance } = await open(t);
      const holder = { sessionId: 'sid-1' };
      t.equal(await store.upstream.saveUpstreamTokens(holder, 'sealed-a', 'keep'), false, 'nothing to replace');
      t.equal(await store.upstream.saveUpstreamTokens(holder, 'sealed-a', 100), true);
      t.equal(await store.upstream.findUpstreamTokens(holder), 'sealed-a');
      t.equal(await store.upstream.findUpstreamTokens({ sessionId: 'sid-2' }), undefined);
      t.equal(await store.upstream.findUpstreamTokens({ grantId: 'sid-1' }), undefined, "a grant's and a session's never meet");
      await advance(60);
      t.equal(await store.upstream.saveUpstreamTokens(holder, 'sealed-b', 'keep'), true);
      t.equal(await store.upstream.findUpstreamTokens(holder), 'sealed-b');
      await advance(41);
      t.equal(await store.upstream.findUpstreamTokens(holder), undefined, "'keep' kept the first expiry");
      await store.upstream.saveUpstreamTokens(holder, 'sealed-c', 100);
      await store.upstream.deleteUpstreamTokens(holder);
      t.equal(await store.upstream.findUpstreamTokens(holder), undefined);
    });

    t.test("a grant's upstream tokens go with its revocation, whichever way it is revoked", async (t) => {
      const { store, clock } = await open(t);
      const revoked = newGrantId();
      t.equal(await store.upstream.saveUpstreamTokens({ grantId: revoked }, 'sealed', 600), true);
      t.equal(await store.upstream.findUpstreamTokens({ grantId: revoked }), 'sealed');
      await store.revokeGrant(revoked, 600);
      t.equal(await store.upstream.findUpstreamTokens({ grantId: revoked }), undefined, 'revokeGrant deleted them');
      t.equal(await store.upstream.saveUpstreamTokens({ grantId: revoked }, 'again', 600), false, 'a revoked grant takes none');
      t.equal(await store.upstream.saveUpstreamTokens({ grantId: revoked }, 'again', 'keep'), false);
      t.equal(await store.upstream.findUpstreamTokens({ grantId: revoked }), undefined);

      const known = newGrantId();
      await store.grantIndex.indexGrant({ grantId: known, sub: 'fed_x', clientId: 'web', expiresAt: clock.now + 600_000 });
      await store.upstream.saveUpstreamTokens({ grantId: known }, 'sealed', 600);
      t.equal(await store.revokeKnownGrant(known, 600), true);
      t.equal(await store.upstream.findUpstreamTokens({ grantId: known }), undefined, 'revokeKnownGrant deleted them');
    });

    t.test('a grant revoked by its family (code replay, refresh reuse) reads no upstream tokens, and they are deleted', async (t) => {
      const { store } = await open(t);
      const grantId = newGrantId();
      await store.upstream.saveUpstreamTokens({ grantId }, 'sealed', 600);
      await store.startRefreshFamily(grantId, { digest: 'first', lifetimes: { absoluteSeconds: 600, idleSeconds: 300 } });
      // A reuse: the presented token's generation is behind the family's, without grace: the family is revoked.
      await store.rotateRefreshFamily({ grantId, generation: 0, digest: 'first' }, 'second', 'sealed-response', {
        idleSeconds: 300,
        graceSeconds: 0,
      });
      const reuse = await store.rotateRefreshFamily({ grantId, generation: 0, digest: 'first' }, 'third', 'sealed-response', {
        idleSeconds: 300,
        graceSeconds: 0,
      });
      t.equal(reuse.status, 'reused');
      t.equal(await store.isGrantRevoked(grantId), true);
      t.equal(await store.upstream.findUpstreamTokens({ grantId }), undefined);
    });
  });
}

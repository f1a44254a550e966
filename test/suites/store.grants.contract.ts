import type { Test } from 'tap';
import { newGrantId } from '../../src/tokens/opaque.js';
import type { OpenStore } from '../helpers/stores.js';

/** The grant indexes and remembered consents, as every store keeps them. */
export function grantStoreContract(t: Test, name: string, open: OpenStore): void {
  t.test(`${name}: grant indexes`, async (t) => {
    t.test('a grant is listed under its user and its client, soonest expiry first, until it expires', async (t) => {
      const { store, clock, advance } = await open(t);
      const later = { grantId: newGrantId(), sub: 'alice', clientId: 'web', expiresAt: clock.now + 60_000 };
      const sooner = { grantId: newGrantId(), sub: 'alice', clientId: 'cli', expiresAt: clock.now + 10_000 };
      const bobs = { grantId: newGrantId(), sub: 'bob', clientId: 'web', expiresAt: clock.now + 30_000 };
      for (const grant of [later, sooner, bobs]) await store.grantIndex.indexGrant(grant);
      t.same(await store.grantIndex.listGrants({ sub: 'alice' }), [sooner, later]);
      t.same(await store.grantIndex.listGrants({ clientId: 'web' }), [bobs, later]);
      t.same(await store.grantIndex.listGrants({ clientId: 'cli' }), [sooner]);
      t.same(await store.grantIndex.listGrants({ sub: 'carol' }), []);
      await advance(11);
      t.same(await store.grantIndex.listGrants({ sub: 'alice' }), [later], 'an expired grant leaves the index');
      t.same(await store.grantIndex.listGrants({ clientId: 'cli' }), []);
      await advance(50);
      t.same(await store.grantIndex.listGrants({ sub: 'alice' }), []);
      t.same(await store.grantIndex.listGrants({ clientId: 'web' }), []);
    });

    t.test('indexing a grant again raises its expiry, never lowers it', async (t) => {
      const { store, clock } = await open(t);
      const grant = { grantId: newGrantId(), sub: 'alice', clientId: 'web', expiresAt: clock.now + 60_000 };
      await store.grantIndex.indexGrant(grant);
      await store.grantIndex.indexGrant({ ...grant, expiresAt: clock.now + 3_600_000 });
      await store.grantIndex.indexGrant({ ...grant, expiresAt: clock.now + 1_000 });
      t.same(await store.grantIndex.listGrants({ sub: 'alice' }), [{ ...grant, expiresAt: clock.now + 3_600_000 }]);
      t.same(await store.grantIndex.listGrants({ clientId: 'web' }), [{ ...grant, expiresAt: clock.now + 3_600_000 }]);
    });

    t.test("a grant's details come back as indexed, and its expiry is raised with them in place", async (t) => {
      const { store, clock } = await open(t);
      const details = { grantedAt: 1_767_225_600, scope: ['openid', 'read'], resources: ['https://api.example.com/'] };
      const grant = { grantId: newGrantId(), sub: 'alice', clientId: 'web', expiresAt: clock.now + 60_000, details };
      const bare = { grantId: newGrantId(), sub: 'alice', clientId: 'web', expiresAt: clock.now + 90_000 };
      await store.grantIndex.indexGrant(grant);
      await store.grantIndex.indexGrant(bare);
      await store.grantIndex.indexGrant({ ...grant, expiresAt: clock.now + 120_000 });
      const raised = { ...grant, expiresAt: clock.now + 120_000 };
      t.same(await store.grantIndex.listGrants({ sub: 'alice' }), [bare, raised], 'one entry per grant; a grant without details has none');
      t.same(await store.grantIndex.listGrants({ clientId: 'web' }), [bare, raised]);
      await store.grantIndex.unindexGrants([raised]);
      t.same(await store.grantIndex.listGrants({ sub: 'alice' }), [bare], 'unindexed by what listing returned');
    });

    t.test('countGrants counts the unexpired entries of one index', async (t) => {
      const { store, clock, advance } = await open(t);
      t.equal(await store.grantIndex.countGrants({ clientId: 'web' }), 0);
      await store.grantIndex.indexGrant({ grantId: newGrantId(), sub: 'alice', clientId: 'web', expiresAt: clock.now + 10_000 });
      await store.grantIndex.indexGrant({ grantId: newGrantId(), sub: 'bob', clientId: 'web', expiresAt: clock.now + 60_000 });
      await store.grantIndex.indexGrant({ grantId: newGrantId(), sub: 'bob', clientId: 'cli', expiresAt: clock.now + 60_000 });
      t.equal(await store.grantIndex.countGrants({ clientId: 'web' }), 2);
      t.equal(await store.grantIndex.countGrants({ sub: 'bob' }), 2);
      await advance(11);
      t.equal(await store.grantIndex.countGrants({ clientId: 'web' }), 1, 'an expired grant is not counted');
      t.equal(await store.grantIndex.countGrants({ sub: 'alice' }), 0);
    });

    t.test('unindexed grants leave both indexes; the others stay', async (t) => {
      const { store, clock } = await open(t);
      const one = { grantId: newGrantId(), sub: 'alice', clientId: 'web', expiresAt: clock.now + 60_000 };
      const two = { grantId: newGrantId(), sub: 'alice', clientId: 'web', expiresAt: clock.now + 90_000 };
      await store.grantIndex.indexGrant(one);
      await store.grantIndex.indexGrant(two);
      await store.grantIndex.unindexGrants([one]);
      t.same(await store.grantIndex.listGrants({ sub: 'alice' }), [two]);
      t.same(await store.grantIndex.listGrants({ clientId: 'web' }), [two]);
      await store.grantIndex.unindexGrants([two, one]);
      t.same(await store.grantIndex.listGrants({ sub: 'alice' }), []);
    });

    t.test('an indexed grant is known by its id until its expiry: revokeKnownGrant revokes it', async (t) => {
      const { store, clock, advance } = await open(t);
      const grant = { grantId: newGrantId(), sub: 'alice', clientId: 'web', expiresAt: clock.now + 60_000 };
      await store.grantIndex.indexGrant(grant);
      await store.grantIndex.indexGrant({ ...grant, expiresAt: clock.now + 1_000 });
      await advance(2);
      t.equal(await store.revokeKnownGrant(grant.grantId, 600), true, 'a later index entry was never shortened');
      t.equal(await store.isGrantRevoked(grant.grantId), true);
      t.equal(await store.revokeKnownGrant(grant.grantId, 600), true, 'revoked again: still known');
      const unlisted = { grantId: newGrantId(), sub: 'alice', clientId: 'web', expiresAt: clock.now + 60_000 };
      await store.grantIndex.indexGrant(unlisted);
      await store.grantIndex.unindexGrants([unlisted]);
      t.equal(await store.revokeKnownGrant(unlisted.grantId, 600), true, 'unindexing a grant does not make it unknown');
    });

    t.test('a grant with a refresh family or a revocation mark is known without an index entry', async (t) => {
      const { store } = await open(t);
      const family = newGrantId();
      await store.startRefreshFamily(family, { digest: 'digest', lifetimes: { absoluteSeconds: 60, idleSeconds: 30 } });
      t.equal(await store.revokeKnownGrant(family, 600), true);
      t.equal(await store.isGrantRevoked(family), true);
      const marked = newGrantId();
      await store.revokeGrant(marked, 60);
      t.equal(await store.revokeKnownGrant(marked, 600), true);
    });

    t.test('an unknown or expired grant id: revokeKnownGrant refuses and writes nothing', async (t) => {
      const { store, clock, advance } = await open(t);
      const expired = { grantId: newGrantId(), sub: 'alice', clientId: 'web', expiresAt: clock.now + 10_000 };
      await store.grantIndex.indexGrant(expired);
      await advance(11);
      const first = { digest: 'digest', lifetimes: { absoluteSeconds: 60, idleSeconds: 30 } };
      for (const grantId of [newGrantId(), expired.grantId]) {
        t.equal(await store.revokeKnownGrant(grantId, 600), false);
        t.equal(await store.isGrantRevoked(grantId), false);
        t.equal(await store.startRefreshFamily(grantId, first), true, 'no revocation mark was written: a family can start');
      }
    });

    t.test('any sub and client id works: braces, spaces, non-ASCII', async (t) => {
      const { store, clock } = await open(t);
      const grant = { grantId: newGrantId(), sub: '{alice} "x" é', clientId: 'https://app.example/{id}', expiresAt: clock.now + 60_000 };
      await store.grantIndex.indexGrant(grant);
      t.same(await store.grantIndex.listGrants({ sub: grant.sub }), [grant]);
      t.same(await store.grantIndex.listGrants({ clientId: grant.clientId }), [grant]);
      t.same(await store.grantIndex.listGrants({ sub: 'alice' }), []);
    });
  });

  t.test(`${name}: remembered consent`, async (t) => {
    const CONSENT = { scope: ['read', 'write'], audiences: ['https://api.example.com/'] };

    t.test('remembered per user and client until its TTL', async (t) => {
      const { store, advance } = await open(t);
      await store.consents.rememberConsent('alice', 'web', CONSENT, 60);
      await store.consents.rememberConsent('alice', 'cli', { scope: [], audiences: [] }, 120);
      t.same(await store.consents.findConsent('alice', 'web'), CONSENT);
      t.same(await store.consents.findConsent('alice', 'cli'), { scope: [], audiences: [] });
      t.equal(await store.consents.findConsent('bob', 'web'), undefined);
      await advance(61);
      t.equal(await store.consents.findConsent('alice', 'web'), undefined, 'expired');
      t.same(await store.consents.findConsent('alice', 'cli'), { scope: [], audiences: [] }, 'the other client keeps its own TTL');
      await advance(60);
      t.equal(await store.consents.findConsent('alice', 'cli'), undefined);
    });

    t.test('a new consent replaces the one remembered for that client', async (t) => {
      const { store } = await open(t);
      await store.consents.rememberConsent('alice', 'web', CONSENT, 60);
      await store.consents.rememberConsent('alice', 'web', { scope: ['read'], audiences: [] }, 60);
      t.same(await store.consents.findConsent('alice', 'web'), { scope: ['read'], audiences: [] });
    });

    t.test("forgotten for one client, or for all of a user's clients", async (t) => {
      const { store } = await open(t);
      await store.consents.rememberConsent('alice', 'web', CONSENT, 60);
      await store.consents.rememberConsent('alice', 'cli', CONSENT, 60);
      await store.consents.rememberConsent('bob', 'web', CONSENT, 60);
      await store.consents.forgetConsent('alice', 'web');
      t.equal(await store.consents.findConsent('alice', 'web'), undefined);
      t.same(await store.consents.findConsent('alice', 'cli'), CONSENT);
      await store.consents.forgetConsent('alice');
      t.equal(await store.consents.findConsent('alice', 'cli'), undefined);
      t.same(await store.consents.findConsent('bob', 'web'), CONSENT, "another user's consent stays");
    });

    t.test("forgotten for every user of one client; the user's other clients keep theirs", async (t) => {
      const { store, advance } = await open(t);
      await store.consents.rememberConsent('alice', 'web', CONSENT, 60);
      await store.consents.rememberConsent('{bob} é', 'web', CONSENT, 120);
      await store.consents.rememberConsent('carol', 'web', CONSENT, 10);
      await store.consents.rememberConsent('alice', 'cli', CONSENT, 60);
      await store.consents.rememberConsent('dave', 'https://app.example/{id}', CONSENT, 60);
      await advance(11);
      await store.consents.rememberConsent('alice', 'web', { scope: ['read'], audiences: [] }, 60);
      await store.consents.forgetConsentsToClient('web');
      for (const sub of ['alice', '{bob} é', 'carol']) t.equal(await store.consents.findConsent(sub, 'web'), undefined, sub);
      t.same(await store.consents.findConsent('alice', 'cli'), CONSENT);
      t.same(await store.consents.findConsent('dave', 'https://app.example/{id}'), CONSENT, 'another client keeps its consents');
      await store.consents.forgetConsentsToClient('nobody');
      await store.consents.rememberConsent('alice', 'web', CONSENT, 60);
      t.same(await store.consents.findConsent('alice', 'web'), CONSENT, 'consent given again is remembered');
      await store.consents.forgetConsentsToClient('web');
      t.equal(await store.consents.findConsent('alice', 'web'), undefined, '… and forgotten again');
    });
  });
}

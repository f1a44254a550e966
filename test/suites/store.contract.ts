import type { Test } from 'tap';
import type { AuthorizationCodeRecord } from '../../src/store/types.js';
import { mintOpaqueToken, newGrantId, refOf } from '../../src/tokens/opaque.js';
import type { OpenStore } from '../helpers/stores.js';

export const RECORD: AuthorizationCodeRecord = {
  clientId: 'webapp',
  redirectUri: 'https://app.example.com/callback',
  redirectUriSent: true,
  scope: ['read'],
  sub: 'alice',
  authTime: 1_700_000_000,
  codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
};

/** The contract every store meets; `advance` moves the store's notion of time past a TTL. */
export function storeContract(t: Test, name: string, open: OpenStore): void {
  t.test(`${name}: authorization codes`, async (t) => {
    t.test('a saved code is consumed once, then reported as replayed with its record', async (t) => {
      const { store } = await open(t);
      const code = mintOpaqueToken(newGrantId());
      await store.saveAuthorizationCode(code.ref, RECORD, 60);
      t.same(await store.consumeAuthorizationCode(code.ref), { status: 'consumed', record: RECORD });
      t.same(await store.consumeAuthorizationCode(code.ref), { status: 'replayed', record: RECORD });
      t.same(
        await store.consumeAuthorizationCode(refOf(code.value)!),
        { status: 'replayed', record: RECORD },
        'found again from the presented value',
      );
    });

    t.test('a code and the refresh family it starts keep the granted resources (RFC 8707)', async (t) => {
      const { store } = await open(t);
      const resources = ['https://mcp.example.com/mcp', 'https://api.example.com/?tenant=a'];
      const code = mintOpaqueToken(newGrantId());
      await store.saveAuthorizationCode(code.ref, { ...RECORD, resources }, 60);
      t.same(await store.consumeAuthorizationCode(code.ref), { status: 'consumed', record: { ...RECORD, resources } });
      const family = { clientId: 'webapp', sub: 'alice', scope: ['read'], resources, authTime: 1_700_000_000 };
      const first = mintOpaqueToken(code.ref.grantId);
      await store.createRefreshFamily(code.ref.grantId, family, first.ref, { absoluteSeconds: 60, idleSeconds: 30 });
      t.same((await store.readRefreshToken(first.ref))?.family, family);
    });

    t.test('an unknown code is not_found', async (t) => {
      const { store } = await open(t);
      t.same(await store.consumeAuthorizationCode(mintOpaqueToken(newGrantId()).ref), { status: 'not_found' });
    });

    t.test('a code expires after its TTL, used or not', async (t) => {
      const { store, advance } = await open(t);
      const unused = mintOpaqueToken(newGrantId());
      const used = mintOpaqueToken(newGrantId());
      await store.saveAuthorizationCode(unused.ref, RECORD, 1);
      await store.saveAuthorizationCode(used.ref, RECORD, 1);
      t.equal((await store.consumeAuthorizationCode(used.ref)).status, 'consumed');
      await advance(1.2);
      t.same(await store.consumeAuthorizationCode(unused.ref), { status: 'not_found' });
      t.same(await store.consumeAuthorizationCode(used.ref), { status: 'not_found' }, 'the tombstone lives only as long as the code');
    });

    t.test('of 50 parallel consumers of one code exactly one wins', async (t) => {
      const { store } = await open(t);
      const code = mintOpaqueToken(newGrantId());
      await store.saveAuthorizationCode(code.ref, RECORD, 60);
      const outcomes = await Promise.all(Array.from({ length: 50 }, () => store.consumeAuthorizationCode(code.ref)));
      t.equal(outcomes.filter((o) => o.status === 'consumed').length, 1);
      t.equal(outcomes.filter((o) => o.status === 'replayed').length, 49);
    });

    t.test('ping answers', async (t) => {
      const { store } = await open(t);
      await t.resolves(store.ping());
    });
  });

  t.test(`${name}: grants and refresh families`, async (t) => {
    const FAMILY = { clientId: 'webapp', sub: 'alice', scope: ['read'], authTime: 1_700_000_000 };
    const LIFETIMES = { absoluteSeconds: 60, idleSeconds: 30 };

    t.test('a family starts once; a revoked grant stays revoked', async (t) => {
      const { store } = await open(t);
      const grantId = newGrantId();
      t.equal(await store.createRefreshFamily(grantId, FAMILY, mintOpaqueToken(grantId).ref, LIFETIMES), true);
      t.equal(await store.createRefreshFamily(grantId, FAMILY, mintOpaqueToken(grantId).ref, LIFETIMES), false, 'never twice');
      t.equal(await store.isGrantRevoked(grantId), false);
      await store.revokeGrant(grantId, 10);
      t.equal(await store.isGrantRevoked(grantId), true);
    });

    t.test('revoking first (a replayed code) refuses the family that comes after', async (t) => {
      const { store } = await open(t);
      const grantId = newGrantId();
      await store.revokeGrant(grantId, 60);
      t.equal(await store.createRefreshFamily(grantId, FAMILY, mintOpaqueToken(grantId).ref, LIFETIMES), false);
      t.equal(await store.isGrantRevoked(grantId), true);
    });

    t.test('the revocation mark lasts at least its TTL', async (t) => {
      const { store, advance } = await open(t);
      const grantId = newGrantId();
      await store.revokeGrant(grantId, 1);
      await advance(1.2);
      t.equal(await store.isGrantRevoked(grantId), false, 'gone after its TTL');
    });
  });

  t.test(`${name}: refresh token lifetimes`, async (t) => {
    const FAMILY = { clientId: 'webapp', sub: 'alice', scope: ['read'], authTime: 1_700_000_000 };

    t.test('a token dies unused after the idle lifetime', async (t) => {
      const { store, advance } = await open(t);
      const grantId = newGrantId();
      const first = mintOpaqueToken(grantId);
      await store.createRefreshFamily(grantId, FAMILY, first.ref, { absoluteSeconds: 60, idleSeconds: 1 });
      t.equal((await store.readRefreshToken(first.ref))?.state, 'current');
      await advance(1.2);
      t.equal(await store.readRefreshToken(first.ref), undefined);
      t.same(await store.rotateRefreshToken(first.ref, mintOpaqueToken(grantId).ref, 'sealed', { idleSeconds: 1, graceSeconds: 0 }), {
        status: 'invalid',
      });
    });

    t.test('the family dies at its absolute lifetime, however often it rotates', async (t) => {
      const { store, advance } = await open(t);
      const grantId = newGrantId();
      let current = mintOpaqueToken(grantId);
      await store.createRefreshFamily(grantId, FAMILY, current.ref, { absoluteSeconds: 2, idleSeconds: 60 });
      for (let i = 0; i < 2; i += 1) {
        await advance(0.8);
        const next = mintOpaqueToken(grantId);
        t.same(await store.rotateRefreshToken(current.ref, next.ref, 'sealed', { idleSeconds: 60, graceSeconds: 0 }), {
          status: 'rotated',
        });
        current = next;
      }
      await advance(0.6);
      t.equal(await store.readRefreshToken(current.ref), undefined, 'gone with its family');
    });

    t.test('reading reports current, rotated and revoked', async (t) => {
      const { store } = await open(t);
      const grantId = newGrantId();
      const first = mintOpaqueToken(grantId);
      const second = mintOpaqueToken(grantId);
      await store.createRefreshFamily(grantId, FAMILY, first.ref, { absoluteSeconds: 60, idleSeconds: 30 });
      await store.rotateRefreshToken(first.ref, second.ref, 'sealed', { idleSeconds: 30, graceSeconds: 0 });
      t.match(await store.readRefreshToken(first.ref), { family: FAMILY, state: 'rotated' });
      t.match(await store.readRefreshToken(second.ref), { family: FAMILY, state: 'current' });
      await store.revokeGrant(grantId, 60);
      t.match(await store.readRefreshToken(second.ref), { state: 'revoked' });
    });
  });

  t.test(`${name}: access token denylist`, async (t) => {
    const { store, advance } = await open(t);
    t.equal(await store.isAccessTokenDenylisted('jti-1'), false);
    await store.denylistAccessToken('jti-1', 1);
    t.equal(await store.isAccessTokenDenylisted('jti-1'), true);
    await advance(1.2);
    t.equal(await store.isAccessTokenDenylisted('jti-1'), false, 'kept only until the token would have expired');
  });

  t.test(`${name}: DPoP proof replay cache (RFC 9449 §11.1)`, async (t) => {
    const jkt = 'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs';
    const otherJkt = '0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I';

    t.test('a proof is accepted once, then refused until the window has passed', async (t) => {
      const { store, advance } = await open(t);
      t.equal(await store.rememberDpopProof(jkt, 'jti-1', 2), true, 'first presentation');
      t.equal(await store.rememberDpopProof(jkt, 'jti-1', 2), false, 'a replay');
      await advance(1.5);
      t.equal(await store.rememberDpopProof(jkt, 'jti-1', 2), false, 'still remembered inside the window');
      await advance(0.7);
      t.equal(await store.rememberDpopProof(jkt, 'jti-1', 2), true, 'forgotten once the window has passed');
    });

    t.test('a jti is scoped by the key thumbprint; any characters and lengths are safe', async (t) => {
      const { store } = await open(t);
      t.equal(await store.rememberDpopProof(jkt, 'same', 60), true);
      t.equal(await store.rememberDpopProof(otherJkt, 'same', 60), true, 'another key may use the same jti');
      const odd = `{tag}:*\n ${'x'.repeat(300)}`;
      t.equal(await store.rememberDpopProof(jkt, odd, 60), true);
      t.equal(await store.rememberDpopProof(jkt, odd, 60), false);
    });

    t.test('of 40 concurrent presentations of one proof exactly one is accepted', async (t) => {
      const { store } = await open(t);
      const outcomes = await Promise.all(Array.from({ length: 40 }, () => store.rememberDpopProof(jkt, 'raced', 60)));
      t.equal(outcomes.filter(Boolean).length, 1);
    });
  });

  t.test(`${name}: attempt counters`, async (t) => {
    t.test('reserves up to the limit in a window that opens at the first attempt, then refuses', async (t) => {
      const { store, advance } = await open(t);
      t.same(await store.reserveAttempt('username:alice', 2, 3), { reserved: true });
      await advance(1.1);
      t.same(await store.reserveAttempt('username:alice', 2, 3), { reserved: true });
      t.same(
        await store.reserveAttempt('username:alice', 2, 3),
        { reserved: false, retryAfterSeconds: 2 },
        'the window opened at the first',
      );
      t.same(await store.reserveAttempt('username:bob', 2, 3), { reserved: true }, 'per key');
      t.same(await store.reserveAttempt('username:alice', 5, 3), { reserved: true }, 'the limit is the caller’s');
      await advance(2.1);
      t.same(await store.reserveAttempt('username:alice', 1, 3), { reserved: true }, 'the window closed: counting starts again');
      t.same(await store.reserveAttempt('username:alice', 1, 3), { reserved: false, retryAfterSeconds: 3 });
    });

    t.test('a released reservation is given back; clearing forgets every attempt', async (t) => {
      const { store } = await open(t);
      await store.reserveAttempt('address:192.0.2.1', 2, 60);
      await store.reserveAttempt('address:192.0.2.1', 2, 60);
      await store.releaseAttempt('address:192.0.2.1');
      t.same(await store.reserveAttempt('address:192.0.2.1', 2, 60), { reserved: true });
      t.same(await store.reserveAttempt('address:192.0.2.1', 2, 60), { reserved: false, retryAfterSeconds: 60 });
      await store.clearAttempts('address:192.0.2.1');
      t.same(await store.reserveAttempt('address:192.0.2.1', 1, 60), { reserved: true });
      await store.releaseAttempt('address:192.0.2.1');
      await store.releaseAttempt('address:192.0.2.1');
      await store.releaseAttempt('address:192.0.2.9');
      t.same(await store.reserveAttempt('address:192.0.2.1', 1, 60), { reserved: true }, 'releasing below zero gives nothing extra');
      t.same(await store.reserveAttempt('address:192.0.2.1', 1, 60), { reserved: false, retryAfterSeconds: 60 });
    });

    t.test('of 60 concurrent reservations, exactly the limit are granted', async (t) => {
      const { store } = await open(t);
      const outcomes = await Promise.all(Array.from({ length: 60 }, () => store.reserveAttempt('username:carol', 5, 60)));
      t.equal(outcomes.filter((o) => o.reserved).length, 5);
      t.same(
        outcomes.find((o) => !o.reserved),
        { reserved: false, retryAfterSeconds: 60 },
      );
    });
  });
}

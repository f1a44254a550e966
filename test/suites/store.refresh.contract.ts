import type { Test } from 'tap';
import type { RefreshTokenRef, Store } from '../../src/store/types.js';
import { mintOpaqueToken, newGrantId } from '../../src/tokens/opaque.js';
import { newRefreshTokenHead, type RefreshTokenHead } from '../../src/tokens/refresh-token-format.js';
import type { OpenStore } from '../helpers/stores.js';
import { RECORD } from './store.contract.js';

const LIFETIMES = { absoluteSeconds: 60, idleSeconds: 30 };
const NO_GRACE = { idleSeconds: 30, graceSeconds: 0 };
const GRACE = { idleSeconds: 30, graceSeconds: 10 };

/** A family started with its first token; `rotate` rotates the current token into a fresh successor. */
async function startedFamily(store: Store, lifetimes = LIFETIMES) {
  const grantId = newGrantId();
  const first = newRefreshTokenHead(grantId, 0);
  if (!(await store.startRefreshFamily(grantId, { digest: first.digest, lifetimes }))) throw new Error('family not started');
  const tokens: RefreshTokenHead[] = [first];
  const rotate = async (options = NO_GRACE, sealed = 'sealed') => {
    const current = tokens[tokens.length - 1] as RefreshTokenHead;
    const next = newRefreshTokenHead(grantId, current.generation + 1);
    const outcome = await store.rotateRefreshFamily(current, next.digest, sealed, options);
    if (outcome.status === 'rotated') tokens.push(next);
    return outcome;
  };
  return { grantId, tokens, rotate };
}

/** The refresh-family part of the store contract (constant-size families). */
export function refreshFamilyContract(t: Test, name: string, open: OpenStore): void {
  t.test(`${name}: the refresh-token key`, async (t) => {
    const { store } = await open(t);
    const key = await store.refreshTokenKey();
    t.equal(key.length, 32, '256 bits');
    t.same(await store.refreshTokenKey(), key, 'the same key every time');
  });

  t.test(`${name}: a code redemption starts the refresh family in the same step`, async (t) => {
    t.test('first use: consumed, family started at generation 0; a replay revokes the grant', async (t) => {
      const { store, clock } = await open(t);
      const code = mintOpaqueToken(newGrantId());
      const first = newRefreshTokenHead(code.ref.grantId, 0);
      await store.saveAuthorizationCode(code.ref, RECORD, 60);
      const redemption = { revocationMarkSeconds: 60, firstRefreshToken: { digest: first.digest, lifetimes: LIFETIMES } };
      t.same(await store.redeemAuthorizationCode(code.ref, redemption), { status: 'consumed', record: RECORD, familyStarted: true });
      t.same(await store.readRefreshFamily(code.ref.grantId), {
        generation: 0,
        currentDigest: first.digest,
        revoked: false,
        issuedAt: clock.now,
        expiresAt: clock.now + 30_000,
      });
      t.same(await store.redeemAuthorizationCode(code.ref, redemption), { status: 'replayed', record: RECORD });
      t.match(await store.readRefreshFamily(code.ref.grantId), { revoked: true }, 'the replay revoked the family it started');
      t.same(await store.rotateRefreshFamily(first, newRefreshTokenHead(code.ref.grantId, 1).digest, 's', NO_GRACE), { status: 'invalid' });
    });

    t.test('a grant revoked first: the code is consumed, no family starts', async (t) => {
      const { store } = await open(t);
      const code = mintOpaqueToken(newGrantId());
      await store.saveAuthorizationCode(code.ref, RECORD, 60);
      await store.revokeGrant(code.ref.grantId, 60);
      const firstRefreshToken = { digest: newRefreshTokenHead(code.ref.grantId, 0).digest, lifetimes: LIFETIMES };
      t.same(await store.redeemAuthorizationCode(code.ref, { revocationMarkSeconds: 60, firstRefreshToken }), {
        status: 'consumed',
        record: RECORD,
        familyStarted: false,
      });
      t.equal(await store.readRefreshFamily(code.ref.grantId), undefined, 'a revocation mark is no family');
      t.equal(await store.isGrantRevoked(code.ref.grantId), true);
    });

    t.test('of 50 parallel redemptions exactly one wins and starts the family', async (t) => {
      const { store } = await open(t);
      const code = mintOpaqueToken(newGrantId());
      await store.saveAuthorizationCode(code.ref, RECORD, 60);
      const heads = Array.from({ length: 50 }, () => newRefreshTokenHead(code.ref.grantId, 0));
      const outcomes = await Promise.all(
        heads.map((head) =>
          store.redeemAuthorizationCode(code.ref, {
            revocationMarkSeconds: 60,
            firstRefreshToken: { digest: head.digest, lifetimes: LIFETIMES },
          }),
        ),
      );
      const winners = outcomes.filter((o) => o.status === 'consumed');
      t.equal(winners.length, 1);
      t.equal(outcomes.filter((o) => o.status === 'replayed').length, 49);
      t.match(winners[0], { familyStarted: true });
      t.equal(await store.isGrantRevoked(code.ref.grantId), true, 'the replays revoked the grant');
    });
  });

  t.test(`${name}: grants and refresh families`, async (t) => {
    t.test('a family starts once; a revoked grant stays revoked', async (t) => {
      const { store } = await open(t);
      const grantId = newGrantId();
      const first = { digest: newRefreshTokenHead(grantId, 0).digest, lifetimes: LIFETIMES };
      t.equal(await store.startRefreshFamily(grantId, first), true);
      t.equal(await store.startRefreshFamily(grantId, first), false, 'never twice');
      t.equal(await store.isGrantRevoked(grantId), false);
      await store.revokeGrant(grantId, 10);
      t.equal(await store.isGrantRevoked(grantId), true);
      t.match(await store.readRefreshFamily(grantId), { revoked: true, generation: 0 }, 'revoking keeps the family key');
    });

    t.test('revoking first (a replayed code) refuses the family that comes after', async (t) => {
      const { store } = await open(t);
      const grantId = newGrantId();
      await store.revokeGrant(grantId, 60);
      t.equal(await store.startRefreshFamily(grantId, { digest: newRefreshTokenHead(grantId, 0).digest, lifetimes: LIFETIMES }), false);
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

  t.test(`${name}: rotation and reuse detection (RFC 9700 §4.14.2)`, async (t) => {
    t.test('the current token rotates; every earlier generation is reuse and revokes the family', async (t) => {
      const { store } = await open(t);
      const family = await startedFamily(store);
      for (let i = 0; i < 3; i += 1) t.same(await family.rotate(), { status: 'rotated' });
      t.match(await store.readRefreshFamily(family.grantId), { generation: 3, currentDigest: family.tokens[3]?.digest, revoked: false });
      const oldest = family.tokens[0] as RefreshTokenRef;
      t.same(await store.rotateRefreshFamily(oldest, newRefreshTokenHead(family.grantId, 1).digest, 's', NO_GRACE), { status: 'reused' });
      t.equal(await store.isGrantRevoked(family.grantId), true);
      t.same(await family.rotate(), { status: 'invalid' }, 'the current token of a revoked family is dead too');
    });

    t.test('a generation never reached, or a token of the current generation never issued, is invalid and changes nothing', async (t) => {
      const { store } = await open(t);
      const family = await startedFamily(store);
      const ahead = newRefreshTokenHead(family.grantId, 5);
      t.same(await store.rotateRefreshFamily(ahead, newRefreshTokenHead(family.grantId, 6).digest, 's', NO_GRACE), { status: 'invalid' });
      const stranger = newRefreshTokenHead(family.grantId, 0);
      t.same(await store.rotateRefreshFamily(stranger, newRefreshTokenHead(family.grantId, 1).digest, 's', NO_GRACE), {
        status: 'invalid',
      });
      t.same(await family.rotate(), { status: 'rotated' }, 'the family is untouched');
    });

    t.test('grace: one retry of the token just rotated gets the sealed response, the next is reuse', async (t) => {
      const { store } = await open(t);
      const family = await startedFamily(store);
      t.same(await family.rotate(GRACE, 'successor response'), { status: 'rotated' });
      const rotated = family.tokens[0] as RefreshTokenRef;
      const retry = () => store.rotateRefreshFamily(rotated, newRefreshTokenHead(family.grantId, 1).digest, 'other', GRACE);
      t.same(await retry(), { status: 'grace', sealedResponse: 'successor response' });
      t.same(await retry(), { status: 'reused' }, 'only once');
      t.equal(await store.isGrantRevoked(family.grantId), true);
    });

    t.test('grace covers only the token just rotated, and only inside its window', async (t) => {
      const { store, advance } = await open(t);
      const family = await startedFamily(store);
      await family.rotate(GRACE);
      await family.rotate(GRACE);
      const older = family.tokens[0] as RefreshTokenRef;
      t.same(await store.rotateRefreshFamily(older, newRefreshTokenHead(family.grantId, 1).digest, 's', GRACE), { status: 'reused' });

      const other = await startedFamily(store);
      await other.rotate(GRACE);
      await advance(10.5);
      const late = other.tokens[0] as RefreshTokenRef;
      t.same(await store.rotateRefreshFamily(late, newRefreshTokenHead(other.grantId, 1).digest, 's', GRACE), { status: 'reused' });
    });

    t.test('a rotation without grace leaves no grace record of an earlier one', async (t) => {
      const { store } = await open(t);
      const family = await startedFamily(store);
      await family.rotate(GRACE, 'first successor');
      await family.rotate(NO_GRACE);
      const justRotated = family.tokens[1] as RefreshTokenRef;
      t.same(await store.rotateRefreshFamily(justRotated, newRefreshTokenHead(family.grantId, 2).digest, 's', NO_GRACE), {
        status: 'reused',
      });
    });

    t.test('of 50 parallel rotations of one token exactly one rotates', async (t) => {
      const { store } = await open(t);
      const family = await startedFamily(store);
      const first = family.tokens[0] as RefreshTokenRef;
      const outcomes = await Promise.all(
        Array.from({ length: 50 }, () => store.rotateRefreshFamily(first, newRefreshTokenHead(family.grantId, 1).digest, 'sealed', GRACE)),
      );
      t.equal(outcomes.filter((o) => o.status === 'rotated').length, 1);
      t.equal(outcomes.filter((o) => o.status === 'grace').length, 1, 'one retry inside the window');
      t.equal(outcomes.filter((o) => o.status === 'reused').length, 1, 'the next revokes the family');
      t.equal(outcomes.filter((o) => o.status === 'invalid').length, 47, 'the rest find it revoked');
    });
  });

  t.test(`${name}: refresh token lifetimes`, async (t) => {
    t.test('a token dies unused after the idle lifetime', async (t) => {
      const { store, advance } = await open(t);
      const family = await startedFamily(store, { absoluteSeconds: 60, idleSeconds: 1 });
      t.match(await store.readRefreshFamily(family.grantId), { generation: 0 });
      await advance(1.2);
      t.same(await family.rotate({ idleSeconds: 1, graceSeconds: 0 }), { status: 'invalid' });
      t.equal(await store.isGrantRevoked(family.grantId), false, 'an expired token is no reuse');
    });

    t.test('the family dies at its absolute lifetime, however often it rotates', async (t) => {
      const { store, advance } = await open(t);
      const family = await startedFamily(store, { absoluteSeconds: 2, idleSeconds: 60 });
      for (let i = 0; i < 2; i += 1) {
        await advance(0.8);
        t.same(await family.rotate({ idleSeconds: 60, graceSeconds: 0 }), { status: 'rotated' });
      }
      t.match(await store.readRefreshFamily(family.grantId), { generation: 2 });
      await advance(0.6);
      t.equal(await store.readRefreshFamily(family.grantId), undefined, 'gone');
      t.same(await family.rotate({ idleSeconds: 60, graceSeconds: 0 }), { status: 'invalid' });
    });

    t.test('the state reports the current token, its issue time and expiry (idle or absolute, the sooner)', async (t) => {
      const { store, clock, advance } = await open(t);
      const family = await startedFamily(store, { absoluteSeconds: 40, idleSeconds: 30 });
      await advance(20);
      await family.rotate();
      const state = await store.readRefreshFamily(family.grantId);
      t.match(state, { generation: 1, currentDigest: family.tokens[1]?.digest, revoked: false, issuedAt: clock.now });
      t.ok(state && Math.abs(state.expiresAt - (clock.now + 20_000)) < 1000, 'the absolute lifetime comes first');
    });
  });
}

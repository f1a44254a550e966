import type { Test } from 'tap';
import type { AuthorizationCodeRecord, CodeRedemption } from '../../src/store/types.js';
import { mintOpaqueToken, newGrantId, refOf } from '../../src/tokens/opaque.js';
import type { OpenStore } from '../helpers/stores.js';
import { attemptCounterContract } from './store.attempts.contract.js';
import { refreshFamilyContract } from './store.refresh.contract.js';

export const RECORD: AuthorizationCodeRecord = {
  clientId: 'webapp',
  redirectUri: 'https://app.example.com/callback',
  redirectUriSent: true,
  scope: ['read'],
  sub: 'alice',
  authTime: 1_700_000_000,
  codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
};

/** A redemption for a client without refresh tokens. */
export const REDEEM: CodeRedemption = { revocationMarkSeconds: 60 };

/** The contract every store meets; `advance` moves the store's notion of time past a TTL. */
export function storeContract(t: Test, name: string, open: OpenStore): void {
  t.test(`${name}: authorization codes`, async (t) => {
    t.test('a saved code is consumed once, then reported as replayed with its record', async (t) => {
      const { store } = await open(t);
      const code = mintOpaqueToken(newGrantId());
      await store.saveAuthorizationCode(code.ref, RECORD, 60);
      t.same(await store.redeemAuthorizationCode(code.ref, REDEEM), { status: 'consumed', record: RECORD, familyStarted: false });
      t.same(await store.redeemAuthorizationCode(code.ref, REDEEM), { status: 'replayed', record: RECORD });
      t.equal(await store.isGrantRevoked(code.ref.grantId), true, 'a replay revokes the grant in the same step');
      t.same(
        await store.redeemAuthorizationCode(refOf(code.value)!, REDEEM),
        { status: 'replayed', record: RECORD },
        'found again from the presented value',
      );
    });

    t.test('a code keeps the granted resources (RFC 8707)', async (t) => {
      const { store } = await open(t);
      const resources = ['https://mcp.example.com/mcp', 'https://api.example.com/?tenant=a'];
      const code = mintOpaqueToken(newGrantId());
      await store.saveAuthorizationCode(code.ref, { ...RECORD, resources }, 60);
      t.same(await store.redeemAuthorizationCode(code.ref, REDEEM), {
        status: 'consumed',
        record: { ...RECORD, resources },
        familyStarted: false,
      });
    });

    t.test('an unknown code is not_found', async (t) => {
      const { store } = await open(t);
      t.same(await store.redeemAuthorizationCode(mintOpaqueToken(newGrantId()).ref, REDEEM), { status: 'not_found' });
    });

    t.test('a code expires after its TTL, used or not', async (t) => {
      const { store, advance } = await open(t);
      const unused = mintOpaqueToken(newGrantId());
      const used = mintOpaqueToken(newGrantId());
      await store.saveAuthorizationCode(unused.ref, RECORD, 1);
      await store.saveAuthorizationCode(used.ref, RECORD, 1);
      t.equal((await store.redeemAuthorizationCode(used.ref, REDEEM)).status, 'consumed');
      await advance(1.2);
      t.same(await store.redeemAuthorizationCode(unused.ref, REDEEM), { status: 'not_found' });
      t.same(
        await store.redeemAuthorizationCode(used.ref, REDEEM),
        { status: 'not_found' },
        'the tombstone lives only as long as the code',
      );
    });

    t.test('of 50 parallel consumers of one code exactly one wins', async (t) => {
      const { store } = await open(t);
      const code = mintOpaqueToken(newGrantId());
      await store.saveAuthorizationCode(code.ref, RECORD, 60);
      const outcomes = await Promise.all(Array.from({ length: 50 }, () => store.redeemAuthorizationCode(code.ref, REDEEM)));
      t.equal(outcomes.filter((o) => o.status === 'consumed').length, 1);
      t.equal(outcomes.filter((o) => o.status === 'replayed').length, 49);
    });

    t.test('ping answers', async (t) => {
      const { store } = await open(t);
      await t.resolves(store.ping());
    });
  });

  refreshFamilyContract(t, name, open);

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

  attemptCounterContract(t, name, open);
}

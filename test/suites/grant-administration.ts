import type { Test } from 'tap';
import { type GrantAdministrationDependencies, revokeGrantById } from '../../src/grants/administration.js';
import { newGrantId } from '../../src/tokens/opaque.js';
import type { OpenStore, TestStore } from '../helpers/stores.js';

/** `grants revoke <grant-id>` below the command: only a grant the store knows is revoked. The same on every store. */

function administration({ store, clock }: TestStore): GrantAdministrationDependencies {
  return { index: store.grantIndex, revocation: store, consents: store.consents, revocationMarkSeconds: 3600, clock: () => clock.now };
}

const FIRST_TOKEN = { digest: 'digest', lifetimes: { absoluteSeconds: 60, idleSeconds: 30 } };

export function grantAdministrationSuite(t: Test, name: string, open: OpenStore): void {
  t.test(`revoking a grant by its id (${name})`, async (t) => {
    t.test('an indexed grant (implicit, a code not yet redeemed) or a refresh family: revoked', async (t) => {
      const opened = await open(t);
      const { store, clock } = opened;
      const indexed = { grantId: newGrantId(), sub: 'alice', clientId: 'spa', expiresAt: clock.now + 3_600_000 };
      await store.grantIndex.indexGrant(indexed);
      const family = newGrantId();
      await store.startRefreshFamily(family, FIRST_TOKEN);
      for (const grantId of [indexed.grantId, family]) {
        t.equal(await revokeGrantById(grantId, administration(opened)), true);
        t.equal(await store.isGrantRevoked(grantId), true);
      }
    });

    t.test('an id the store does not know (a typo, expired, not an id at all): refused, nothing written', async (t) => {
      const opened = await open(t);
      const { store, clock, advance } = opened;
      const expired = { grantId: newGrantId(), sub: 'alice', clientId: 'spa', expiresAt: clock.now + 10_000 };
      await store.grantIndex.indexGrant(expired);
      await advance(11);
      const unknown = newGrantId();
      for (const grantId of [unknown, expired.grantId, unknown.slice(1), `${unknown}\n`, 'abc*', `{${unknown.slice(2)}}`, '']) {
        t.equal(await revokeGrantById(grantId, administration(opened)), false, JSON.stringify(grantId));
        t.equal(await store.isGrantRevoked(grantId), false);
      }
      for (const grantId of [unknown, expired.grantId]) {
        t.equal(await store.startRefreshFamily(grantId, FIRST_TOKEN), true, 'no revocation mark: a family can start');
      }
    });
  });
}

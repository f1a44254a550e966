import type { Test } from 'tap';
import type { ClientRegistrationRecord } from '../../src/store/types.js';
import type { OpenStore } from '../helpers/stores.js';

export const REGISTRATION: ClientRegistrationRecord = {
  clientId: 'dyn_AAAAAAAAAAAAAAAAAAAAAA',
  metadata: { redirect_uris: ['http://127.0.0.1/callback'], token_endpoint_auth_method: 'none', client_name: 'Example' },
  registrationTokenHash: 'sha256:47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU',
  issuedAt: 1_800_000_000,
};

/** The contract of ClientRegistrationStore on every store. */
export function registrationStoreContract(t: Test, name: string, open: OpenStore): void {
  t.test(`${name}: client registrations`, async (t) => {
    t.test('created once, found with its expiry, never overwritten', async (t) => {
      const { store, clock } = await open(t);
      const registrations = store.clientRegistrations;
      t.equal(await registrations.createClientRegistration(REGISTRATION, 600), true);
      const found = await registrations.findClientRegistration(REGISTRATION.clientId);
      t.same(found?.record, REGISTRATION);
      t.ok(Math.abs((found?.expiresAt ?? 0) - (clock.now + 600_000)) < 1000, 'expires after its TTL');
      const other = { ...REGISTRATION, metadata: { client_name: 'Impostor' } };
      t.equal(await registrations.createClientRegistration(other, 600), false, 'an existing id is refused');
      t.same((await registrations.findClientRegistration(REGISTRATION.clientId))?.record, REGISTRATION, 'and kept');
      t.equal(await registrations.findClientRegistration('dyn_BBBBBBBBBBBBBBBBBBBBBB'), undefined);
    });

    t.test('of 20 concurrent creations of one id exactly one succeeds', async (t) => {
      const { store } = await open(t);
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          store.clientRegistrations.createClientRegistration({ ...REGISTRATION, metadata: { client_name: `n${i}` } }, 600),
        ),
      );
      t.equal(results.filter(Boolean).length, 1);
    });

    t.test('expires after its TTL unless touched; touch and replace restart it', async (t) => {
      const { store, advance } = await open(t);
      const registrations = store.clientRegistrations;
      const touched = { ...REGISTRATION, clientId: 'dyn_CCCCCCCCCCCCCCCCCCCCCC' };
      const replaced = { ...REGISTRATION, clientId: 'dyn_DDDDDDDDDDDDDDDDDDDDDD' };
      for (const record of [REGISTRATION, touched, replaced]) await registrations.createClientRegistration(record, 100);
      await advance(60);
      t.equal(await registrations.touchClientRegistration(touched.clientId, 100), true);
      const renamed = { ...replaced, metadata: { client_name: 'Renamed' } };
      t.equal(await registrations.replaceClientRegistration(renamed, 100), true);
      await advance(60);
      t.equal(await registrations.findClientRegistration(REGISTRATION.clientId), undefined, 'untouched: expired');
      t.same((await registrations.findClientRegistration(touched.clientId))?.record, touched);
      t.same((await registrations.findClientRegistration(replaced.clientId))?.record, renamed);
      t.equal(await registrations.touchClientRegistration(REGISTRATION.clientId, 100), false, 'an expired one is not revived');
      t.equal(await registrations.replaceClientRegistration(REGISTRATION, 100), false, 'nor recreated by replace');
      t.equal(await registrations.findClientRegistration(REGISTRATION.clientId), undefined);
    });

    t.test('deleted once', async (t) => {
      const { store } = await open(t);
      const registrations = store.clientRegistrations;
      await registrations.createClientRegistration(REGISTRATION, 600);
      t.equal(await registrations.deleteClientRegistration(REGISTRATION.clientId), true);
      t.equal(await registrations.deleteClientRegistration(REGISTRATION.clientId), false);
      t.equal(await registrations.findClientRegistration(REGISTRATION.clientId), undefined);
    });

    t.test('listed by client id while they live: paged, a touch or replace keeps them listed, deleted and expired ones go', async (t) => {
      const { store, advance } = await open(t);
      const registrations = store.clientRegistrations;
      const id = (letter: string) => `dyn_${letter.repeat(22)}`;
      t.same(await registrations.listClientRegistrations({ limit: 10 }), { registrations: [] });
      t.equal(await registrations.countClientRegistrations(), 0, 'none counted');
      for (const letter of ['E', 'B', 'D', 'C'])
        await registrations.createClientRegistration({ ...REGISTRATION, clientId: id(letter) }, 100);
      t.equal(await registrations.countClientRegistrations(), 4);
      const first = await registrations.listClientRegistrations({ limit: 2 });
      t.same(
        first.registrations.map((r) => r.record.clientId),
        [id('B'), id('C')],
        'in the order of their ids',
      );
      t.equal(first.next, id('C'));
      t.same(first.registrations[0]?.record, { ...REGISTRATION, clientId: id('B') }, 'with their records');
      await registrations.createClientRegistration({ ...REGISTRATION, clientId: id('A') }, 100);
      t.equal(await registrations.createClientRegistration({ ...REGISTRATION, clientId: id('A') }, 100), false);
      t.equal(await registrations.countClientRegistrations(), 5, 'a refused creation adds none');
      const second = await registrations.listClientRegistrations({ after: first.next, limit: 2 });
      t.same(
        second.registrations.map((r) => r.record.clientId),
        [id('D'), id('E')],
        'the next page after the cursor: one added before it is not listed again',
      );
      t.equal(second.next, undefined, 'the last page has no next');
      await advance(60);
      t.equal(await registrations.touchClientRegistration(id('B'), 100), true);
      t.equal(await registrations.replaceClientRegistration({ ...REGISTRATION, clientId: id('C') }, 100), true);
      t.equal(await registrations.deleteClientRegistration(id('D')), true);
      await advance(41);
      const left = await registrations.listClientRegistrations({ limit: 10 });
      t.same(
        left.registrations.map((r) => r.record.clientId),
        [id('B'), id('C')],
        'touched and replaced ones stay; the deleted and the expired go',
      );
      t.equal(await registrations.countClientRegistrations(), 2, 'counted as listed');
      t.ok(left.registrations.every((r) => r.expiresAt > 0));
      await advance(60);
      t.equal(await registrations.countClientRegistrations(), 0, 'the expired are not counted, listed or not');
      t.same(await registrations.listClientRegistrations({ limit: 10 }), { registrations: [] });
    });
  });
}

import type { Test } from 'tap';
import type { DeviceApproval, DeviceAuthorizationStart } from '../../src/store/types.js';
import { mintOpaqueToken, newGrantId } from '../../src/tokens/opaque.js';
import type { OpenStore } from '../helpers/stores.js';

export const DEVICE_START: DeviceAuthorizationStart = {
  record: { clientId: 'tv', scope: ['openid', 'read'], resources: ['https://mcp.example.com/mcp'] },
  lifetimeSeconds: 600,
  keepSeconds: 1200,
  intervalSeconds: 5,
};

export const APPROVAL: DeviceApproval = { sub: 'user-alice', authTime: 1_700_000_000, scope: ['openid', 'read'], sid: 's1', amr: ['pwd'] };

/** A device code's ref and a user code's digest, fresh for each test. */
function codes() {
  const device = mintOpaqueToken(newGrantId()).ref;
  return { device, userCode: `digest-${device.grantId}` };
}

/** Device authorizations (RFC 8628), the same on every store. */
export function deviceCodeStoreContract(t: Test, name: string, open: OpenStore): void {
  t.test(`${name}: device authorizations`, async (t) => {
    t.test('a started authorization is found by its user code while pending; a user code is never given twice', async (t) => {
      const { store, clock } = await open(t);
      const { device, userCode } = codes();
      t.equal(await store.deviceCodes.startDeviceAuthorization(device, userCode, DEVICE_START), true);
      t.same(await store.deviceCodes.findDeviceAuthorization(userCode), {
        device,
        record: DEVICE_START.record,
        expiresAt: clock.now + 600_000,
      });
      t.equal(await store.deviceCodes.findDeviceAuthorization('digest-of-no-code'), undefined);
      const other = codes();
      t.equal(await store.deviceCodes.startDeviceAuthorization(other.device, userCode, DEVICE_START), false, 'the user code is taken');
      t.same(await store.deviceCodes.pollDeviceAuthorization(other.device, 'tv', 5), { status: 'unknown' }, 'and nothing was written');
    });

    t.test('polls: pending, then slow_down when sooner than the interval, which grows by the step and is kept', async (t) => {
      const { store, advance } = await open(t);
      const { device, userCode } = codes();
      await store.deviceCodes.startDeviceAuthorization(device, userCode, DEVICE_START);
      const poll = () => store.deviceCodes.pollDeviceAuthorization(device, 'tv', 5);
      t.same(await poll(), { status: 'pending' }, 'the first poll is never too soon');
      t.same(await poll(), { status: 'slow_down', intervalSeconds: 10 });
      await advance(9);
      t.same(await poll(), { status: 'slow_down', intervalSeconds: 15 }, '9 s after the last poll: sooner than 10');
      await advance(15);
      t.same(await poll(), { status: 'pending' }, '15 s: the interval kept');
      await advance(14);
      t.same(await poll(), { status: 'slow_down', intervalSeconds: 20 });
      t.same(await store.deviceCodes.pollDeviceAuthorization(device, 'another-client', 5), { status: 'unknown' }, "another client's poll");
      await advance(20);
      t.same(await poll(), { status: 'pending' }, "which changed nothing of this client's");
    });

    t.test('an approval, only of a pending authorization, is handed out by exactly one poll', async (t) => {
      const { store } = await open(t);
      const { device, userCode } = codes();
      await store.deviceCodes.startDeviceAuthorization(device, userCode, DEVICE_START);
      t.equal(await store.deviceCodes.decideDeviceAuthorization(device, { approved: APPROVAL }), true);
      t.equal(await store.deviceCodes.decideDeviceAuthorization(device, 'denied'), false, 'decided once');
      t.equal(await store.deviceCodes.findDeviceAuthorization(userCode), undefined, 'no longer pending: not found by its user code');
      t.same(await store.deviceCodes.pollDeviceAuthorization(device, 'tv', 5), {
        status: 'approved',
        record: DEVICE_START.record,
        approval: APPROVAL,
      });
      t.same(await store.deviceCodes.pollDeviceAuthorization(device, 'tv', 5), { status: 'used' });
    });

    t.test('a denial is answered to every poll; it cannot be approved after', async (t) => {
      const { store, advance } = await open(t);
      const { device, userCode } = codes();
      await store.deviceCodes.startDeviceAuthorization(device, userCode, DEVICE_START);
      t.equal(await store.deviceCodes.decideDeviceAuthorization(device, 'denied'), true);
      t.equal(await store.deviceCodes.decideDeviceAuthorization(device, { approved: APPROVAL }), false);
      t.same(await store.deviceCodes.pollDeviceAuthorization(device, 'tv', 5), { status: 'denied' });
      await advance(5);
      t.same(await store.deviceCodes.pollDeviceAuthorization(device, 'tv', 5), { status: 'denied' });
    });

    t.test('at its expiry: not found, not decided, expired to polls (the first says so), then unknown once no longer kept', async (t) => {
      const { store, advance } = await open(t);
      const { device, userCode } = codes();
      await store.deviceCodes.startDeviceAuthorization(device, userCode, DEVICE_START);
      await advance(599);
      t.ok(await store.deviceCodes.findDeviceAuthorization(userCode), 'pending until the last second');
      await advance(1);
      t.equal(await store.deviceCodes.findDeviceAuthorization(userCode), undefined);
      t.equal(await store.deviceCodes.decideDeviceAuthorization(device, { approved: APPROVAL }), false);
      t.same(await store.deviceCodes.pollDeviceAuthorization(device, 'tv', 5), { status: 'expired', first: true });
      t.same(await store.deviceCodes.pollDeviceAuthorization(device, 'tv', 5), { status: 'expired', first: false });
      await advance(600);
      t.same(await store.deviceCodes.pollDeviceAuthorization(device, 'tv', 5), { status: 'unknown' });
    });

    t.test('an approved authorization not polled before its expiry has expired', async (t) => {
      const { store, advance } = await open(t);
      const { device, userCode } = codes();
      await store.deviceCodes.startDeviceAuthorization(device, userCode, DEVICE_START);
      await store.deviceCodes.decideDeviceAuthorization(device, { approved: APPROVAL });
      await advance(600);
      t.same(await store.deviceCodes.pollDeviceAuthorization(device, 'tv', 5), { status: 'expired', first: true });
    });

    t.test('concurrent polls of an approved authorization: exactly one gets it', async (t) => {
      const { store } = await open(t);
      const { device, userCode } = codes();
      await store.deviceCodes.startDeviceAuthorization(device, userCode, DEVICE_START);
      await store.deviceCodes.decideDeviceAuthorization(device, { approved: APPROVAL });
      const polls = await Promise.all(Array.from({ length: 20 }, () => store.deviceCodes.pollDeviceAuthorization(device, 'tv', 5)));
      t.equal(polls.filter((p) => p.status === 'approved').length, 1);
      t.same(
        polls.filter((p) => p.status !== 'approved'),
        Array.from({ length: 19 }, () => ({ status: 'used' })),
      );
    });
  });
}

import type { RedisClient } from './redis-connection.js';
import type { ScriptCommands } from './redis-scripts.js';
import type {
  DeviceApproval,
  DeviceAuthorizationRecord,
  DeviceAuthorizationStart,
  DeviceCodeStore,
  DeviceDecision,
  DevicePoll,
  PendingDeviceAuthorization,
} from './device-types.js';
import type { OpaqueTokenRef } from './types.js';

type PollReply = [0] | [1] | [2, 0 | 1] | [3, number] | [4] | [5] | [6, string, string];

/** The device code's ref a user code's key holds: `<grantId>.<digest>`. */
function refIn(value: string | null): OpaqueTokenRef | undefined {
  const dot = value?.indexOf('.') ?? -1;
  return value && dot > 0 ? { grantId: value.slice(0, dot), digest: value.slice(dot + 1) } : undefined;
}

/**
 * DeviceCodeStore on Redis: each device authorization one hash under its grant's tag (the
 * scripts of src/store/lua-devices.ts), and the user code's key in a slot of its own, written
 * before the record with SET NX (a user code is never given to two authorizations at once).
 */
export class RedisDeviceCodes implements DeviceCodeStore {
  constructor(
    private readonly redis: ScriptCommands,
    private readonly client: RedisClient,
  ) {}

  async startDeviceAuthorization(device: OpaqueTokenRef, userCodeDigest: string, start: DeviceAuthorizationStart): Promise<boolean> {
    const { keys, clock } = this.redis;
    const lifetimeMs = start.lifetimeSeconds * 1000;
    const userCode = keys.deviceUserCode(userCodeDigest);
    const claimed = await this.redis.call('start device authorization', () =>
      this.client.set(userCode, `${device.grantId}.${device.digest}`, 'PX', lifetimeMs, 'NX'),
    );
    if (claimed !== 'OK') return false;
    const record = JSON.stringify(start.record);
    const args = [record, start.record.clientId, clock() + lifetimeMs, start.intervalSeconds, start.keepSeconds * 1000];
    const created = await this.redis.call('start device authorization', () =>
      this.redis.script<number>('startDeviceAuthorization', [keys.deviceAuthorization(device)], args),
    );
    return created === 1;
  }

  async findDeviceAuthorization(userCodeDigest: string): Promise<PendingDeviceAuthorization | undefined> {
    const { keys, clock } = this.redis;
    const device = refIn(await this.redis.call('read device user code', () => this.client.get(keys.deviceUserCode(userCodeDigest))));
    if (!device) return undefined;
    const [data, status, exp] = await this.redis.call('read device authorization', () =>
      this.client.hmget(keys.deviceAuthorization(device), 'data', 'status', 'exp'),
    );
    const expiresAt = Number(exp);
    if (typeof data !== 'string' || status !== 'pending' || clock() >= expiresAt) return undefined;
    return { device, record: JSON.parse(data) as DeviceAuthorizationRecord, expiresAt };
  }

  async decideDeviceAuthorization(device: OpaqueTokenRef, decision: DeviceDecision): Promise<boolean> {
    const { keys, clock } = this.redis;
    const [status, approval] = decision === 'denied' ? ['denied', ''] : ['approved', JSON.stringify(decision.approved)];
    const decided = await this.redis.call('decide device authorization', () =>
      this.redis.script<number>('decideDeviceAuthorization', [keys.deviceAuthorization(device)], [clock(), status, approval]),
    );
    return decided === 1;
  }

  async pollDeviceAuthorization(device: OpaqueTokenRef, clientId: string, slowDownSeconds: number): Promise<DevicePoll> {
    const { keys, clock } = this.redis;
    const reply = await this.redis.call('poll device authorization', () =>
      this.redis.acknowledgedScript<PollReply>(
        'pollDeviceAuthorization',
        [keys.deviceAuthorization(device)],
        [clock(), clientId, slowDownSeconds],
        // Only handing out the approval makes the code single-use; every other answer issues nothing.
        (replied) => replied[0] !== 6,
      ),
    );
    switch (reply[0]) {
      case 0:
        return { status: 'unknown' };
      case 1:
        return { status: 'used' };
      case 2:
        return { status: 'expired', first: reply[1] === 1 };
      case 3:
        return { status: 'slow_down', intervalSeconds: reply[1] };
      case 4:
        return { status: 'pending' };
      case 5:
        return { status: 'denied' };
      case 6:
        return {
          status: 'approved',
          record: JSON.parse(reply[1]) as DeviceAuthorizationRecord,
          approval: JSON.parse(reply[2]) as DeviceApproval,
        };
    }
  }
}

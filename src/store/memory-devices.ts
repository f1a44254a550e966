import type { Clock } from '../clock.js';
import type {
  DeviceApproval,
  DeviceAuthorizationRecord,
  DeviceAuthorizationStart,
  DeviceCodeStore,
  DeviceDecision,
  DevicePoll,
  PendingDeviceAuthorization,
} from './device-types.js';
import { type Expiring, ExpiringMap } from './expiring-map.js';
import type { OpaqueTokenRef } from './types.js';

type DeviceStatus = 'pending' | 'approved' | 'denied' | 'expired' | 'used';

interface DeviceEntry extends Expiring {
  readonly record: DeviceAuthorizationRecord;
  /** When the codes expire (ms); the entry itself is kept longer. */
  readonly codeExpiresAt: number;
  status: DeviceStatus;
  intervalSeconds: number;
  lastPoll: number | undefined;
  approval: DeviceApproval | undefined;
}

interface UserCodeEntry extends Expiring {
  readonly device: OpaqueTokenRef;
}

const keyOf = (device: OpaqueTokenRef) => `${device.grantId}:${device.digest}`;

/** DeviceCodeStore in memory: the scripts of src/store/lua-devices.ts step for step, each call one atomic step. */
export class MemoryDeviceCodes implements DeviceCodeStore {
  private readonly devices: ExpiringMap<DeviceEntry>;
  private readonly userCodes: ExpiringMap<UserCodeEntry>;

  constructor(private readonly clock: Clock) {
    this.devices = new ExpiringMap(clock);
    this.userCodes = new ExpiringMap(clock);
  }

  async startDeviceAuthorization(device: OpaqueTokenRef, userCodeDigest: string, start: DeviceAuthorizationStart): Promise<boolean> {
    const now = this.clock();
    if (this.userCodes.get(userCodeDigest) || this.devices.get(keyOf(device))) return false;
    this.userCodes.set(userCodeDigest, { device, expiresAt: now + start.lifetimeSeconds * 1000 });
    this.devices.set(keyOf(device), {
      record: start.record,
      codeExpiresAt: now + start.lifetimeSeconds * 1000,
      status: 'pending',
      intervalSeconds: start.intervalSeconds,
      lastPoll: undefined,
      approval: undefined,
      expiresAt: now + start.keepSeconds * 1000,
    });
    return true;
  }

  async findDeviceAuthorization(userCodeDigest: string): Promise<PendingDeviceAuthorization | undefined> {
    const device = this.userCodes.get(userCodeDigest)?.device;
    const entry = device && this.devices.get(keyOf(device));
    if (!device || entry?.status !== 'pending' || this.clock() >= entry.codeExpiresAt) return undefined;
    return { device, record: entry.record, expiresAt: entry.codeExpiresAt };
  }

  async decideDeviceAuthorization(device: OpaqueTokenRef, decision: DeviceDecision): Promise<boolean> {
    const entry = this.devices.get(keyOf(device));
    if (entry?.status !== 'pending' || this.clock() >= entry.codeExpiresAt) return false;
    if (decision === 'denied') entry.status = 'denied';
    else Object.assign(entry, { status: 'approved', approval: decision.approved });
    return true;
  }

  async pollDeviceAuthorization(device: OpaqueTokenRef, clientId: string, slowDownSeconds: number): Promise<DevicePoll> {
    const entry = this.devices.get(keyOf(device));
    if (!entry || entry.record.clientId !== clientId) return { status: 'unknown' };
    if (entry.status === 'used') return { status: 'used' };
    const now = this.clock();
    if (now >= entry.codeExpiresAt) {
      const first = entry.status !== 'expired';
      entry.status = 'expired';
      return { status: 'expired', first };
    }
    const last = entry.lastPoll;
    entry.lastPoll = now;
    if (last !== undefined && now - last < entry.intervalSeconds * 1000) {
      entry.intervalSeconds += slowDownSeconds;
      return { status: 'slow_down', intervalSeconds: entry.intervalSeconds };
    }
    if (entry.status === 'pending' || entry.status === 'denied') return { status: entry.status };
    entry.status = 'used';
    return { status: 'approved', record: entry.record, approval: entry.approval as DeviceApproval };
  }

  maps(): ExpiringMap<Expiring>[] {
    return [this.devices, this.userCodes];
  }
}

import type { Client } from '../clients/registry.js';
import { ServerError } from '../errors/index.js';
import type { SecurityEvents } from '../events/types.js';
import { type ResourceLookup, resolveNewTarget, type TargetRequest } from '../resources/indicators.js';
import type { DeviceApproval, DeviceCodeStore, DevicePoll, PendingDeviceAuthorization } from '../store/types.js';
import { mintOpaqueToken, newGrantId, refOf } from '../tokens/opaque.js';
import { newUserCode, normaliseUserCode, userCodeDigest } from './user-code.js';

/**
 * The device authorization grant (RFC 8628): starting one (§3.1, §3.2), finding it again
 * from the user code the user types (§3.3), the user's decision, and the polls of the token
 * endpoint (§3.4, §3.5). The device code is an opaque token `<grantId>.<secret>` (256 bits
 * of secret): its grant id names the grant it starts and is the hash tag of its keys.
 */

/** RFC 8628 §3.2: "If no value is provided, clients MUST use 5 as the default." We say 5. */
export const POLLING_INTERVAL_SECONDS = 5;
/** §3.5 slow_down: "the interval MUST be increased by 5 seconds for this and all subsequent requests". */
export const SLOW_DOWN_SECONDS = 5;
/** A user code already in use is drawn again; with 20^8 codes, more than a few tries means something else is wrong. */
const USER_CODE_TRIES = 5;

export interface DeviceAuthorizationSettings {
  /** DEVICE_CODE_TTL, in seconds. */
  readonly lifetimeSeconds: number;
}

/** The §3.2 response, before the route adds the verification URIs. */
export interface StartedDeviceAuthorization {
  readonly deviceCode: string;
  /** `XXXX-XXXX`. */
  readonly userCode: string;
  readonly expiresIn: number;
  readonly interval: number;
}

/** A pending device authorization as the user's pages see it: with its user code, normalised. */
export interface DeviceVerification extends PendingDeviceAuthorization {
  readonly userCode: string;
}

/**
 * OpenID Connect Core §11: offline_access is ignored for a client that never gets refresh
 * tokens (no `refresh_token` in its grant_types), as at the authorization endpoint.
 */
function withoutUnusableOfflineAccess(client: Client, scope: readonly string[]): string[] {
  return client.grantTypes.has('refresh_token') ? [...scope] : scope.filter((s) => s !== 'offline_access');
}

export class DeviceAuthorizations {
  constructor(
    private readonly store: DeviceCodeStore,
    private readonly resources: ResourceLookup,
    private readonly settings: DeviceAuthorizationSettings,
    private readonly events: SecurityEvents,
  ) {}

  /**
   * §3.1: the client asks, with `scope` and `resource` (RFC 8707) as at the authorization
   * endpoint: the user approves on the next pages, so the client's registered scope (or, with
   * none, what the resources accept) is the limit.
   */
  async start(client: Client, requested: TargetRequest): Promise<StartedDeviceAuthorization> {
    const target = resolveNewTarget(requested, client.scope, this.resources, true);
    const record = {
      clientId: client.clientId,
      scope: withoutUnusableOfflineAccess(client, target.scope),
      resources: target.resources.map((r) => r.resource),
    };
    const { lifetimeSeconds } = this.settings;
    const start = { record, lifetimeSeconds, keepSeconds: 2 * lifetimeSeconds, intervalSeconds: POLLING_INTERVAL_SECONDS };
    const grantId = newGrantId();
    const deviceCode = mintOpaqueToken(grantId);
    for (let tries = 0; tries < USER_CODE_TRIES; tries++) {
      const userCode = newUserCode();
      const digest = userCodeDigest(normaliseUserCode(userCode) as string);
      if (await this.store.startDeviceAuthorization(deviceCode.ref, digest, start)) {
        const { scope, resources: resource } = record;
        this.events.emit({ event: 'device.authorization_started', clientId: client.clientId, grantId, scope, resource });
        return { deviceCode: deviceCode.value, userCode, expiresIn: lifetimeSeconds, interval: POLLING_INTERVAL_SECONDS };
      }
    }
    throw new ServerError('no free user code was found');
  }

  /** The pending authorization `typed` names, or undefined: malformed, unknown, decided or expired read the same. */
  async pending(typed: string): Promise<DeviceVerification | undefined> {
    const userCode = normaliseUserCode(typed);
    if (userCode === undefined) return undefined;
    const found = await this.store.findDeviceAuthorization(userCodeDigest(userCode));
    return found && { ...found, userCode };
  }

  /** The user approved (only a pending, unexpired authorization): false when it was no longer pending. */
  async approve(verification: DeviceVerification, approval: DeviceApproval): Promise<boolean> {
    const approved = await this.store.decideDeviceAuthorization(verification.device, { approved: approval });
    if (approved) {
      const { clientId, resources } = verification.record;
      this.events.emit({
        event: 'device.approved',
        clientId,
        sub: approval.sub,
        grantId: verification.device.grantId,
        scope: approval.scope,
        resource: resources,
      });
    }
    return approved;
  }

  async deny(verification: DeviceVerification, sub: string): Promise<boolean> {
    const denied = await this.store.decideDeviceAuthorization(verification.device, 'denied');
    if (denied)
      this.events.emit({ event: 'device.denied', clientId: verification.record.clientId, sub, grantId: verification.device.grantId });
    return denied;
  }

  /** §3.4: one poll by `clientId`; a value that cannot be a device code of ours is unknown. */
  async poll(deviceCode: string, clientId: string): Promise<DevicePoll & { readonly grantId?: string }> {
    const ref = refOf(deviceCode);
    if (!ref) return { status: 'unknown' };
    const polled = await this.store.pollDeviceAuthorization(ref, clientId, SLOW_DOWN_SECONDS);
    if (polled.status === 'expired' && polled.first) this.events.emit({ event: 'device.expired', clientId, grantId: ref.grantId });
    return { ...polled, grantId: ref.grantId };
  }
}

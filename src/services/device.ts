import type { DeviceVerificationDependencies } from '../authorize/device-request.js';
import type { Config } from '../config/index.js';
import { DeviceAuthorizations } from '../device/device-authorizations.js';
import { UserCodeAttempts } from '../device/user-code-limit.js';
import type { SecurityEvents } from '../events/types.js';
import type { ResourceLookup } from '../resources/indicators.js';
import type { Store } from '../store/types.js';

/**
 * The device authorization grant's services (RFC 8628): the authorizations (started at their
 * endpoint, decided at /device, polled at the token endpoint) and what /device needs of them.
 */
export function deviceServices(
  config: Config,
  store: Pick<Store, 'deviceCodes' | 'attempts'>,
  resources: ResourceLookup,
  events: SecurityEvents,
): { readonly devices: DeviceAuthorizations; readonly verification: DeviceVerificationDependencies } {
  const devices = new DeviceAuthorizations(store.deviceCodes, resources, { lifetimeSeconds: config.device.codeTtlSeconds }, events);
  const attempts = new UserCodeAttempts(store.attempts, {
    perAddress: config.device.userCodeMaxFailures,
    ipv6Prefix: config.ipv6LimitPrefix,
  });
  return { devices, verification: { devices, attempts, codeTtlSeconds: config.device.codeTtlSeconds } };
}

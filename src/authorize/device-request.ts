import type { Client } from '../clients/registry.js';
import type { DeviceAuthorizations, DeviceVerification } from '../device/device-authorizations.js';
import type { UserCodeAttempts } from '../device/user-code-limit.js';
import { InvalidRequest, type OAuthError, StoreUnavailableError } from '../errors/index.js';
import type { Parameters } from '../oauth/form-params.js';
import type { PromptValue } from '../oauth/prompt.js';
import type { ProtectedResource } from '../resources/registry.js';
import type { AuthorizationRegistries, AuthorizationRequest } from './request.js';

/**
 * The user's side of the device authorization grant (RFC 8628 §3.3) as a request of the
 * authorization endpoint's pipeline: once the user typed a user code that names a pending
 * authorization, its verification goes through the same sign-in (password form, upstream
 * providers, the client's default_max_age) and consent steps as an authorization request,
 * carried through the pages as the one parameter `user_code`; only the last step differs:
 * the approval is recorded for the device to poll, nothing is redirected. Errors are pages
 * for the user, never sent anywhere.
 */

/** What the pages carry of a device verification: `[['user_code', <normalised>]]`. No authorization request is that alone. */
export const USER_CODE_PARAMETER = 'user_code';

export interface DeviceVerificationRequest {
  /** The pending authorization, found again on every step (it may have expired or been decided meanwhile). */
  readonly device: DeviceVerification;
  readonly client: Client;
  readonly scope: readonly string[];
  readonly resources: readonly ProtectedResource[];
  /**
   * Always `consent`: a device asks from afar, so the user sees the consent page with its
   * warning every time (RFC 8628 §5.4), whatever they approved before or the client's skip_consent.
   */
  readonly prompt: ReadonlySet<PromptValue>;
  /** The client's default_max_age (OpenID Connect Registration §2). */
  readonly maxAge: number | undefined;
  /** For the consent rules that ask whether offline_access is usable: as with a code, whose grant it is like. */
  readonly responseType: 'code';
  readonly idTokenHint: undefined;
  readonly loginHint: undefined;
  readonly parameters: Parameters;
}

/** An authorization request, or a device verification: what the login and consent pages carry. */
export type InteractionRequest = AuthorizationRequest | DeviceVerificationRequest;

export function isDeviceVerification(request: InteractionRequest): request is DeviceVerificationRequest {
  return 'device' in request;
}

export function isDeviceParameters(parameters: Parameters): boolean {
  return parameters.length === 1 && parameters[0]?.[0] === USER_CODE_PARAMETER;
}

/** The parameters a device verification is carried as. */
export function deviceParameters(userCode: string): Parameters {
  return [[USER_CODE_PARAMETER, userCode]];
}

export interface DeviceVerificationDependencies {
  readonly devices: Pick<DeviceAuthorizations, 'pending' | 'approve' | 'deny'>;
  /** The limits of user codes typed at /device (RFC 8628 §5.1). */
  readonly attempts: Pick<UserCodeAttempts, 'reserve'>;
  /** DEVICE_CODE_TTL, in seconds: the longest an approval waits for its poll. */
  readonly codeTtlSeconds: number;
}

/** A device verification that cannot go on (no longer pending, its client or a resource gone): a page, start again on the device. */
export class DeviceVerificationRefused extends InvalidRequest {}

/** The device verification of a pending authorization, with its client and resources as registered now. */
export async function deviceVerificationOf(
  device: DeviceVerification,
  registries: AuthorizationRegistries,
): Promise<DeviceVerificationRequest> {
  const client = await registries.clients.find(device.record.clientId);
  const resources = device.record.resources.map((resource) => registries.resources.get(resource));
  if (!client || resources.some((resource) => resource === undefined))
    throw new DeviceVerificationRefused('the application of this device, or a service it asked for, is no longer registered here');
  return {
    device,
    client,
    scope: device.record.scope,
    resources: resources as ProtectedResource[],
    prompt: new Set(['consent']),
    maxAge: client.defaultMaxAge,
    responseType: 'code',
    idTokenHint: undefined,
    loginHint: undefined,
    parameters: deviceParameters(device.userCode),
  };
}

/** A device verification carried through the pages, found again: still pending, or an error page. */
export async function carriedDeviceVerification(
  parameters: Parameters,
  deps: { readonly registries: AuthorizationRegistries; readonly device?: DeviceVerificationDependencies | undefined },
): Promise<DeviceVerificationRequest> {
  const found = await deps.device?.devices.pending(parameters[0]?.[1] ?? '');
  if (!found) throw new DeviceVerificationRefused('this code was already used or has expired');
  return deviceVerificationOf(found, deps.registries);
}

/**
 * An error of a step, where the request's errors go: back to the client for an authorization
 * request (RFC 6749 §4.1.2.1); for a device verification, a page (a store failure stays one,
 * the 503 page).
 */
export function atClient(error: OAuthError, request: InteractionRequest): OAuthError | StoreUnavailableError {
  if (!isDeviceVerification(request)) return error.redirectingTo(request);
  return error.cause instanceof StoreUnavailableError ? error.cause : error;
}

import type { AuthenticatedUser } from '../session/browser-session.js';
import type { DeviceVerificationRequest } from './device-request.js';
import type { AuthorizeDependencies, AuthorizeOutcome } from './pipeline.js';
import { bindUpstreamTokens } from './respond.js';

/**
 * The respond step of a device verification (RFC 8628 §3.3): the user's decision, recorded
 * for the device to poll. Only a pending authorization is decided; one decided meanwhile (in
 * another window) or expired is said to be so.
 */

/** `approved`, `denied`, or `gone`: no longer pending when the user decided (decided elsewhere, or expired). */
export type DeviceDecision = 'approved' | 'denied' | 'gone';

/**
 * Allow: the grant is listed under its user and client (index first, for as long as it can
 * reach: its code's life, then its tokens'), takes its copy of a federated session's upstream
 * tokens, and is approved with the scope the user approved.
 */
export async function approvedDevice(
  request: DeviceVerificationRequest,
  user: AuthenticatedUser,
  deps: AuthorizeDependencies,
): Promise<AuthorizeOutcome> {
  const { device, client } = request;
  const verifying = deps.device;
  if (!verifying) return { kind: 'device-decided', request, decision: 'gone' };
  const responses = deps.responses;
  const grantId = device.device.grantId;
  const reach = verifying.codeTtlSeconds + responses.accessTokens.longestLifetimeSeconds;
  const lifetime = client.grantTypes.has('refresh_token') ? reach + responses.refreshTokenTtl : reach;
  const parties = { grantId, sub: user.sub, clientId: client.clientId, scope: request.scope, resources: request.resources };
  await responses.grantIndexing.recordFor(parties, lifetime);
  await bindUpstreamTokens(user, grantId, lifetime, responses);
  const approved = await verifying.devices.approve(device, {
    sub: user.sub,
    authTime: user.authTime,
    scope: request.scope,
    ...(user.sid !== undefined ? { sid: user.sid } : {}),
    ...(user.amr !== undefined && user.amr.length > 0 ? { amr: user.amr } : {}),
  });
  return { kind: 'device-decided', request, decision: approved ? 'approved' : 'gone' };
}

/** Deny: the device hears access_denied at its next poll. */
export async function deniedDevice(
  request: DeviceVerificationRequest,
  user: AuthenticatedUser,
  deps: AuthorizeDependencies,
): Promise<AuthorizeOutcome> {
  const denied = (await deps.device?.devices.deny(request.device, user.sub)) === true;
  return { kind: 'device-decided', request, decision: denied ? 'denied' : 'gone' };
}

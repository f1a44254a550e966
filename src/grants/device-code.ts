import { DEVICE_CODE_GRANT } from '../clients/registry.js';
import type { DeviceAuthorizations } from '../device/device-authorizations.js';
import { AccessDenied, AuthorizationPending, ExpiredToken, InvalidGrant, SlowDown } from '../errors/index.js';
import type { SecurityEvents } from '../events/types.js';
import type { IdTokens } from '../oidc/id-token.js';
import { narrowGrantTarget, type ResourceLookup } from '../resources/indicators.js';
import type { DevicePoll, RefreshFamilyStore } from '../store/types.js';
import type { AccessTokens } from '../tokens/access-token.js';
import { idTokenFor, isAuthentication } from './identity.js';
import { familyKeyBinding, type RefreshFamilies } from './refresh-family.js';
import { USER_DISABLED } from './refresh-rotation.js';
import type { SubjectChecks } from '../users/subject-status.js';
import { type Grant, issuedEvent, targetRequest, tokenResponse } from './types.js';

export interface DeviceCodeGrantDependencies {
  readonly devices: Pick<DeviceAuthorizations, 'poll'>;
  readonly refreshFamilies: RefreshFamilies;
  readonly families: Pick<RefreshFamilyStore, 'startRefreshFamily'>;
  readonly accessTokens: AccessTokens;
  readonly idTokens: IdTokens;
  readonly resources: ResourceLookup;
  readonly events: SecurityEvents;
  /** A user the operator disabled since approving gets nothing (in memory). */
  readonly subjects: SubjectChecks;
}

const INVALID_CODE = 'the device code is invalid, expired, or was issued to another client';

/** The answer to every poll that issues nothing (RFC 8628 §3.5). */
function refusal(poll: Exclude<DevicePoll, { status: 'approved' }>): Error {
  switch (poll.status) {
    case 'unknown':
      return new InvalidGrant(INVALID_CODE);
    case 'used':
      return new InvalidGrant('the device code was already used');
    case 'expired':
      return new ExpiredToken('the device code has expired: start a new device authorization');
    case 'slow_down':
      return new SlowDown(`polled too often: wait at least ${poll.intervalSeconds} seconds between requests`);
    case 'pending':
      return new AuthorizationPending('the user has not yet approved or denied the request');
    case 'denied':
      return new AccessDenied('the user denied the request');
  }
}

/**
 * RFC 8628 §3.4: the device polls with its device code. The store answers each poll in one
 * step (pending, slow_down, denied, expired, or the approval, handed out once); an approval
 * is issued as the code grant issues a redeemed code: the audience of the resources, an ID
 * token with `openid`, a refresh token for a client with the refresh_token grant, bound to
 * the poll's DPoP key. The grant was listed in the indexes when the user approved.
 */
export function deviceCodeGrant(deps: DeviceCodeGrantDependencies): Grant {
  return {
    grantType: DEVICE_CODE_GRANT,
    async handle({ client, params, dpop }) {
      const poll = await deps.devices.poll(params.require('device_code'), client.clientId);
      if (poll.status !== 'approved') throw refusal(poll);
      const grantId = poll.grantId as string;
      const { record, approval } = poll;
      if (deps.subjects.isDisabled(approval.sub)) throw new InvalidGrant(USER_DISABLED);
      const granted = { scope: approval.scope, resources: record.resources };
      const { resources, scope } = narrowGrantTarget(targetRequest(params), granted, deps.resources);
      const identity = {
        sub: approval.sub,
        authTime: approval.authTime,
        ...(approval.sid !== undefined ? { sid: approval.sid } : {}),
        ...(approval.amr !== undefined ? { amr: approval.amr } : {}),
      };
      let refreshToken: string | undefined;
      if (client.grantTypes.has('refresh_token')) {
        const draft = await deps.refreshFamilies.draftFirstToken(grantId);
        // A grant revoked (grants revoke) since the user approved starts no family: nothing is issued.
        if (!(await deps.families.startRefreshFamily(grantId, draft.store))) throw new InvalidGrant('the grant was revoked');
        refreshToken = draft.sealer.seal(draft.head, {
          clientId: client.clientId,
          ...identity,
          scope: granted.scope,
          resources: granted.resources,
          ...familyKeyBinding(client, dpop),
        });
      }
      const issued = await deps.accessTokens.issue({
        subject: approval.sub,
        clientId: client.clientId,
        scope,
        authTime: approval.authTime,
        grantId,
        resources,
        jkt: dpop?.jkt,
      });
      deps.events.emit(
        issuedEvent('device_code', client.clientId, approval.sub, issued, { scope, resources }, grantId, refreshToken !== undefined),
      );
      const idToken = isAuthentication(granted.scope) ? await idTokenFor(deps.idTokens, client, identity, issued.token) : undefined;
      return tokenResponse(issued, scope, refreshToken, idToken);
    },
  };
}

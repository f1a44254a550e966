import type { Client } from '../clients/registry.js';
import { InvalidGrant } from '../errors.js';
import type { SecurityEvents } from '../events/types.js';
import { narrowGrantTarget, type ResourceLookup } from '../oauth/resource.js';
import type { RefreshFamilyRecord, RefreshTokenStore } from '../store/types.js';
import type { AccessTokens } from '../tokens/access-token.js';
import { mintOpaqueToken, refOf } from '../tokens/opaque.js';
import { openWithToken, sealWithToken } from '../tokens/sealed-response.js';
import { type Grant, issuedEvent, type TokenResponse, targetRequest, tokenResponse } from './types.js';

export interface RefreshTokenGrantDependencies {
  readonly refreshTokens: RefreshTokenStore;
  readonly accessTokens: AccessTokens;
  readonly resources: ResourceLookup;
  /** REFRESH_TOKEN_IDLE_TTL: a successor dies unused after this. */
  readonly idleSeconds: number;
  /** REFRESH_REUSE_GRACE, in seconds (0: off); confidential clients only (see refreshReuseGraceSeconds). */
  readonly reuseGraceSeconds: number;
  readonly events: SecurityEvents;
}

const INVALID_REFRESH_TOKEN = 'the refresh token is invalid, expired, revoked, or was issued to another client';

/**
 * How long a retry of a just-rotated token gets the same successor. RFC 9700 §4.14.2:
 * "Authorization servers MUST utilize one of these methods to detect refresh token
 * replay by malicious actors for public clients" (sender-constraining or rotation). A
 * public client's refresh token alone is enough to use it, so a grace answer would hand
 * a thief the live successor, undetected: public clients get strict reuse detection. A
 * confidential client must also authenticate, so its thief needs the secret as well.
 * A family sender-constrained to the client's DPoP key earns a public client the window again.
 */
export function refreshReuseGraceSeconds(client: Client, configuredSeconds: number, family: RefreshFamilyRecord): number {
  if (client.authMethod !== 'none') return configuredSeconds;
  // A public client's family bound to its DPoP key: a retry must come with a fresh proof by
  // that key, which a thief of the refresh token lacks, so the window is safe again.
  return family.jkt !== undefined ? configuredSeconds : 0;
}

/**
 * RFC 6749 §6 with rotation: every use returns a new refresh token and invalidates the
 * presented one in the same atomic step; presenting a rotated token revokes the whole
 * family (RFC 9700 §4.14.2), except, for confidential clients, one retry of the
 * just-rotated token inside REFRESH_REUSE_GRACE, which gets the same successor response back.
 */
export function refreshTokenGrant(deps: RefreshTokenGrantDependencies): Grant {
  return {
    grantType: 'refresh_token',
    async handle({ client, params, dpop }) {
      const presented = params.require('refresh_token');
      const ref = refOf(presented);
      if (!ref) throw new InvalidGrant(INVALID_REFRESH_TOKEN);
      // The family record is immutable, so reading it before the atomic rotation is safe.
      const view = await deps.refreshTokens.readRefreshToken(ref);
      if (!view || view.state === 'revoked' || view.family.clientId !== client.clientId) throw new InvalidGrant(INVALID_REFRESH_TOKEN);
      // RFC 9449 §5: "the authorization server MUST ensure the same key is used in all
      // subsequent access token requests using the refresh token".
      if (view.family.jkt !== undefined && view.family.jkt !== dpop?.jkt) {
        throw new InvalidGrant('the refresh token is bound to a DPoP key: send a DPoP proof made with that key');
      }
      // §6: "The requested scope MUST NOT include any scope not originally granted by the
      // resource owner"; the new refresh token keeps the original grant's scope and resources.
      const { resources, scope } = narrowGrantTarget(targetRequest(params), view.family, deps.resources);

      const successor = mintOpaqueToken(ref.grantId);
      const issued = await deps.accessTokens.issue({
        subject: view.family.sub,
        clientId: client.clientId,
        scope,
        authTime: view.family.authTime,
        grantId: ref.grantId,
        resources,
        jkt: dpop?.jkt,
      });
      const response = tokenResponse(issued, scope, successor.value);
      const outcome = await deps.refreshTokens.rotateRefreshToken(ref, successor.ref, sealWithToken(presented, JSON.stringify(response)), {
        idleSeconds: deps.idleSeconds,
        graceSeconds: refreshReuseGraceSeconds(client, deps.reuseGraceSeconds, view.family),
      });
      switch (outcome.status) {
        case 'rotated':
          deps.events.emit(issuedEvent('refresh_token', client.clientId, view.family.sub, issued, { scope, resources }, ref.grantId, true));
          return response;
        case 'grace': {
          const earlier = openWithToken(presented, outcome.sealedResponse);
          if (!earlier) throw new InvalidGrant(INVALID_REFRESH_TOKEN);
          return JSON.parse(earlier) as TokenResponse;
        }
        case 'reused': {
          const { grantId } = ref;
          deps.events.emit({ event: 'refresh.reuse_detected', clientId: client.clientId, sub: view.family.sub, grantId });
          deps.events.emit({ event: 'grant.revoked', grantId, clientId: client.clientId, reason: 'refresh_reuse' });
          throw new InvalidGrant('the refresh token was already used: every token of this grant is now revoked');
        }
        case 'invalid':
          throw new InvalidGrant(INVALID_REFRESH_TOKEN);
      }
    },
  };
}

import { InvalidGrant } from '../errors/index.js';
import type { LegacyRefreshTokenStore, RefreshFamilyStore } from '../store/types.js';
import { newRefreshTokenHead, parseRefreshToken } from '../tokens/refresh-token-format.js';
import type { RefreshTokenSealing } from '../tokens/refresh-token-sealer.js';
import { legacyRotation } from './legacy-refresh-token.js';
import {
  checkedFamily,
  INVALID_REFRESH_TOKEN,
  type RefreshRotationDependencies,
  refreshReuseGraceSeconds,
  rotationAnswer,
} from './refresh-rotation.js';
import { heldTarget } from './held-target.js';
import { idTokenFor, isAuthentication } from './identity.js';
import { writtenOnce } from './token-response-json.js';
import { type Grant, targetRequest, tokenResponse } from './types.js';

export { refreshReuseGraceSeconds } from './refresh-rotation.js';

export interface RefreshTokenGrantDependencies extends RefreshRotationDependencies {
  readonly refreshTokens: RefreshFamilyStore;
  /** The families written before constant-size families (Redis only). */
  readonly legacyRefreshTokens: LegacyRefreshTokenStore | undefined;
  readonly sealing: RefreshTokenSealing;
}

/**
 * RFC 6749 §6 with rotation: every use returns a new refresh token and invalidates the
 * presented one in the same atomic step; presenting a rotated token revokes the whole
 * family (RFC 9700 §4.14.2), except, for confidential clients, one retry of the
 * just-rotated token inside REFRESH_REUSE_GRACE, which gets the same successor response
 * back. One store round trip: the family data comes sealed in the token.
 */
export function refreshTokenGrant(deps: RefreshTokenGrantDependencies): Grant {
  return {
    grantType: 'refresh_token',
    async handle({ client, params, dpop }) {
      const value = params.require('refresh_token');
      const presented = parseRefreshToken(value);
      if (!presented) {
        if (deps.legacyRefreshTokens) return legacyRotation(value, { client, params, dpop }, deps.legacyRefreshTokens, deps);
        throw new InvalidGrant(INVALID_REFRESH_TOKEN);
      }
      const sealer = await deps.sealing.sealer();
      // Not sealed under our key for this head: not ours, and the store is not asked anything.
      const opened = sealer.openSealed(presented);
      if (!opened) throw new InvalidGrant(INVALID_REFRESH_TOKEN);
      const family = checkedFamily(opened.family, client, dpop, deps.subjects);
      // §6: "The requested scope MUST NOT include any scope not originally granted by the
      // resource owner"; the new refresh token keeps the original grant's scope and resources.
      const { resources, scope } = heldTarget(targetRequest(params), family, deps);

      const head = newRefreshTokenHead(presented.grantId, presented.generation + 1);
      const issued = await deps.accessTokens.issue({
        subject: family.sub,
        clientId: client.clientId,
        scope,
        authTime: family.authTime,
        grantId: presented.grantId,
        resources,
        jkt: dpop?.jkt,
      });
      // OpenID Connect Core §12.2: a new ID token, same sub and auth_time, no nonce.
      const idToken = isAuthentication(family.scope) ? await idTokenFor(deps.idTokens, client, family, issued.token) : undefined;
      // The successor carries the presented token's sealed family data: nothing to encrypt.
      const response = tokenResponse(issued, scope, sealer.successor(head, presented, opened), idToken);
      const graceSeconds = refreshReuseGraceSeconds(client, deps.reuseGraceSeconds, family);
      // No grace window (a public client, or REFRESH_REUSE_GRACE=0): the store keeps no
      // response, so none is sealed.
      const sealedResponse = graceSeconds > 0 ? sealer.sealResponse(presented, writtenOnce(response)) : '';
      const outcome = await deps.refreshTokens.rotateRefreshFamily(presented, head.digest, sealedResponse, {
        idleSeconds: deps.idleSeconds,
        graceSeconds,
      });
      return rotationAnswer(
        outcome,
        { client, family, grantId: presented.grantId, issued, target: { scope, resources }, response },
        deps,
        (sealed) => sealer.openResponse(presented, sealed),
      );
    },
  };
}

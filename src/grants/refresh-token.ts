import { InvalidGrant } from '../errors.js';
import { mintOpaqueToken, refOf } from '../tokens/opaque.js';
import { openWithToken, sealWithToken } from '../tokens/sealed-response.js';
import { resolveRequestedScope } from './scope-request.js';
import { tokenResponse, type Grant, type TokenResponse } from './types.js';

const INVALID_REFRESH_TOKEN = 'the refresh token is invalid, expired, revoked, or was issued to another client';

/**
 * RFC 6749 §6 with rotation: every use returns a new refresh token and invalidates the
 * presented one in the same atomic step; presenting a rotated token revokes the whole
 * family (RFC 9700 §4.14.2), except one retry of the just-rotated token inside
 * REFRESH_REUSE_GRACE, which gets the same successor response back.
 */
export const refreshTokenGrant: Grant = {
  grantType: 'refresh_token',
  async handle({ client, params }, services) {
    const presented = params.require('refresh_token');
    const ref = refOf(presented);
    if (!ref) throw new InvalidGrant(INVALID_REFRESH_TOKEN);
    // The family record is immutable, so reading it before the atomic rotation is safe.
    const view = await services.store.readRefreshToken(ref);
    if (!view || view.state === 'revoked' || view.family.clientId !== client.clientId) throw new InvalidGrant(INVALID_REFRESH_TOKEN);
    // §6: "The requested scope MUST NOT include any scope not originally granted by the
    // resource owner"; the new refresh token keeps the original grant's scope.
    const scope = resolveRequestedScope(params.get('scope'), view.family.scope);

    const successor = mintOpaqueToken(ref.grantId);
    const issued = await services.accessTokens.issue({
      subject: view.family.sub,
      clientId: client.clientId,
      scope,
      authTime: view.family.authTime,
      grantId: ref.grantId,
    });
    const response = tokenResponse(issued, scope, successor.value);
    const outcome = await services.store.rotateRefreshToken(ref, successor.ref, sealWithToken(presented, JSON.stringify(response)), {
      idleSeconds: services.settings.refreshLifetimes.idleSeconds,
      graceSeconds: services.settings.refreshReuseGrace,
    });
    switch (outcome.status) {
      case 'rotated':
        return response;
      case 'grace': {
        const earlier = openWithToken(presented, outcome.sealedResponse);
        if (!earlier) throw new InvalidGrant(INVALID_REFRESH_TOKEN);
        return JSON.parse(earlier) as TokenResponse;
      }
      case 'reused':
        throw new InvalidGrant('the refresh token was already used: every token of this grant is now revoked');
      case 'invalid':
        throw new InvalidGrant(INVALID_REFRESH_TOKEN);
    }
  },
};

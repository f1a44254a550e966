import { InvalidGrant } from '../errors/index.js';
import type { LegacyRefreshTokenStore } from '../store/types.js';
import { mintOpaqueToken, refOf } from '../tokens/opaque.js';
import { openWithToken, sealWithToken } from '../tokens/sealed-response.js';
import {
  checkedFamily,
  INVALID_REFRESH_TOKEN,
  type RefreshRotationDependencies,
  refreshReuseGraceSeconds,
  rotationAnswer,
} from './refresh-rotation.js';
import { heldTarget } from './held-target.js';
import { type GrantRequest, targetRequest, type TokenResponse, tokenResponse } from './types.js';

/**
 * A refresh token of a family written before constant-size families (`<grantId>.<secret>`):
 * rotated as it was then (two round trips, the family data read from the store), its
 * successor of the same format, until the family expires. REFRESH_TOKEN_TTL after the
 * upgrade no such family is left, and this file can go with src/store/redis-legacy-refresh.ts.
 */
export async function legacyRotation(
  presented: string,
  { client, params, dpop }: Pick<GrantRequest, 'client' | 'params' | 'dpop'>,
  store: LegacyRefreshTokenStore,
  deps: RefreshRotationDependencies,
): Promise<TokenResponse> {
  const ref = refOf(presented);
  if (!ref) throw new InvalidGrant(INVALID_REFRESH_TOKEN);
  // The family record is immutable, so reading it before the atomic rotation is safe.
  const view = await store.readRefreshToken(ref);
  const family = checkedFamily(view && view.state !== 'revoked' ? view.family : undefined, client, dpop, deps.subjects);
  const { resources, scope } = heldTarget(targetRequest(params), family, deps);

  const successor = mintOpaqueToken(ref.grantId);
  const issued = await deps.accessTokens.issue({
    subject: family.sub,
    clientId: client.clientId,
    scope,
    authTime: family.authTime,
    grantId: ref.grantId,
    resources,
    jkt: dpop?.jkt,
  });
  const response = tokenResponse(issued, scope, successor.value);
  const outcome = await store.rotateRefreshToken(ref, successor.ref, sealWithToken(presented, JSON.stringify(response)), {
    idleSeconds: deps.idleSeconds,
    graceSeconds: refreshReuseGraceSeconds(client, deps.reuseGraceSeconds, family),
  });
  return rotationAnswer(outcome, { client, family, grantId: ref.grantId, issued, target: { scope, resources }, response }, deps, (sealed) =>
    openWithToken(presented, sealed),
  );
}

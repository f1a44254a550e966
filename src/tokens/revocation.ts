import type { Client } from '../clients/registry.js';
import { type Clock, nowSeconds } from '../clock.js';
import type { SecurityEvents } from '../events/types.js';
import type { AccessTokenDenylist, GrantRevocation } from '../store/types.js';
import type { AccessTokens } from './access-token.js';
import { refreshTokenStatus, type RefreshTokenStatusDependencies } from './refresh-token-status.js';

/** Token revocation (RFC 7009) of the tokens we issue. */

export interface RevocationDependencies extends RefreshTokenStatusDependencies {
  readonly accessTokens: AccessTokens;
  readonly denylist: AccessTokenDenylist;
  readonly grants: GrantRevocation;
  /** How long a grant revocation mark is kept: the longest a refresh family lives. */
  readonly revocationMarkSeconds: number;
  readonly clock: Clock;
  readonly events: SecurityEvents;
}

/**
 * RFC 7009 §2.1: a refresh token revokes its whole grant ("SHOULD also invalidate all
 * access tokens based on the same authorization grant"); an access token is
 * denylisted by jti until it expires. Unknown tokens and other clients' tokens change
 * nothing (§2.2: "invalid tokens do not cause an error response").
 */
export async function revokeToken(token: string, caller: Client, deps: RevocationDependencies): Promise<void> {
  const view = await refreshTokenStatus(token, deps);
  if (view !== 'not_refresh_token') {
    if (view && view.family.clientId === caller.clientId) {
      await deps.grants.revokeGrant(view.grantId, deps.revocationMarkSeconds);
      deps.events.emit({ event: 'grant.revoked', grantId: view.grantId, clientId: caller.clientId, reason: 'revocation_request' });
    }
    return;
  }
  const claims = await deps.accessTokens.verify(token);
  if (!claims || claims.client_id !== caller.clientId) return;
  await deps.denylist.denylistAccessToken(claims.jti, claims.exp - nowSeconds(deps.clock));
  deps.events.emit({ event: 'token.revoked', clientId: caller.clientId, jti: claims.jti });
}

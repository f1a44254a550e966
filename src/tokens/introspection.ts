import type { Client } from '../clients/registry.js';
import { toSeconds } from '../clock.js';
import type { SecurityEvents } from '../events/types.js';
import type { AccessTokenDenylist, GrantRevocation } from '../store/types.js';
import type { SubjectChecks } from '../users/subject-status.js';
import type { AccessTokens } from './access-token.js';
import { refreshTokenStatus, type RefreshTokenStatusDependencies } from './refresh-token-status.js';

/** Token introspection (RFC 7662) of the tokens we issue. */

export interface IntrospectionDependencies extends RefreshTokenStatusDependencies {
  readonly accessTokens: AccessTokens;
  readonly denylist: AccessTokenDenylist;
  readonly grants: GrantRevocation;
  readonly issuer: string;
  readonly events: SecurityEvents;
  /**
   * The operator's marks, in memory: a disabled user's tokens are inactive, as at userinfo
   * and at refresh (a user disabled in USERS_FILE keeps their grants: only the admin API
   * revokes them).
   */
  readonly subjects: Pick<SubjectChecks, 'isDisabled'>;
}

const INACTIVE = { active: false } as const;

/**
 * RFC 7662 §2.2: "If the introspection call is properly authorized but the token is not
 * active, does not exist on this server, or the protected resource is not allowed to
 * introspect this particular token, then the authorization server MUST return an
 * introspection response with the "active" field set to "false"." A client may know
 * about the tokens issued to it; only a client registered with `introspect_all_tokens`
 * (a resource server) may know about every client's.
 */
function mayIntrospectAccessToken(caller: Client, tokenClientId: string): boolean {
  return caller.introspectAllTokens || tokenClientId === caller.clientId;
}

/**
 * RFC 7662 §2.2: `{"active": false}` for anything expired, revoked, malformed, badly
 * signed, unknown, or that the caller may not introspect, without saying which.
 */
export async function introspectToken(token: string, caller: Client, deps: IntrospectionDependencies): Promise<Record<string, unknown>> {
  const answer = await introspectionAnswer(token, caller, deps);
  deps.events.emit({ event: 'introspection.answered', active: answer.active === true });
  return answer;
}

async function introspectionAnswer(token: string, caller: Client, deps: IntrospectionDependencies): Promise<Record<string, unknown>> {
  const view = await refreshTokenStatus(token, deps);
  if (view !== 'not_refresh_token') {
    // RFC 6749 §10.4: refresh tokens are "shared only among the authorization server and the
    // client to whom the refresh tokens were issued": no resource server may read one.
    if (view?.state !== 'current' || view.family.clientId !== caller.clientId || deps.subjects.isDisabled(view.family.sub)) return INACTIVE;
    return {
      active: true,
      client_id: view.family.clientId,
      sub: view.family.sub,
      ...(view.family.scope.length ? { scope: view.family.scope.join(' ') } : {}),
      iat: toSeconds(view.issuedAt),
      exp: toSeconds(view.expiresAt),
      iss: deps.issuer,
    };
  }
  const claims = await deps.accessTokens.verify(token);
  if (!claims || !mayIntrospectAccessToken(caller, claims.client_id) || (claims.sub !== undefined && deps.subjects.isDisabled(claims.sub)))
    return INACTIVE;
  const [denylisted, grantRevoked] = await Promise.all([
    deps.denylist.isAccessTokenDenylisted(claims.jti),
    claims.grant_id ? deps.grants.isGrantRevoked(claims.grant_id) : Promise.resolve(false),
  ]);
  if (denylisted || grantRevoked) return INACTIVE;
  return {
    active: true,
    ...(claims.scope ? { scope: claims.scope } : {}),
    client_id: claims.client_id,
    sub: claims.sub,
    exp: claims.exp,
    iat: claims.iat,
    iss: claims.iss,
    aud: claims.aud,
    jti: claims.jti,
    // RFC 8693 §4.1: an exchanged token's actor.
    ...(claims.act !== undefined ? { act: claims.act } : {}),
    // RFC 9449 §6.2: the response "MUST contain the cnf claim" with jkt, and token_type "DPoP".
    ...(claims.cnf?.jkt !== undefined ? { cnf: { jkt: claims.cnf.jkt }, token_type: 'DPoP' } : { token_type: 'bearer' }),
  };
}

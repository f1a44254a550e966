import type { Client } from '../clients/registry.js';
import type { Keystore } from '../keys/keystore.js';
import type { Store } from '../store/types.js';
import { refOf } from './opaque.js';
import { verifyOwnAccessToken } from './own-access-token.js';

/** Introspection (RFC 7662) and revocation (RFC 7009) of the tokens we issue. */

export interface TokenStatusServices {
  readonly store: Store;
  readonly keystore: Keystore;
  readonly issuer: string;
  readonly clock: () => number;
  /** How long a grant revocation mark is kept: the longest a refresh family lives. */
  readonly refreshTokenTtl: number;
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
export async function introspectToken(token: string, caller: Client, services: TokenStatusServices): Promise<Record<string, unknown>> {
  const ref = refOf(token);
  if (ref) {
    const view = await services.store.readRefreshToken(ref);
    // RFC 6749 §10.4: refresh tokens are "shared only among the authorization server and the
    // client to whom the refresh tokens were issued": no resource server may read one.
    if (!view || view.state !== 'current' || view.family.clientId !== caller.clientId) return INACTIVE;
    return {
      active: true,
      client_id: view.family.clientId,
      sub: view.family.sub,
      ...(view.family.scope.length ? { scope: view.family.scope.join(' ') } : {}),
      iat: Math.floor(view.issuedAt / 1000),
      exp: Math.floor(view.expiresAt / 1000),
      iss: services.issuer,
    };
  }
  const claims = await verifyOwnAccessToken(token, services.keystore, services.issuer, services.clock());
  if (!claims || !mayIntrospectAccessToken(caller, claims.client_id)) return INACTIVE;
  const [denylisted, grantRevoked] = await Promise.all([
    services.store.isAccessTokenDenylisted(claims.jti),
    claims.grant_id ? services.store.isGrantRevoked(claims.grant_id) : Promise.resolve(false),
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
    token_type: 'bearer',
  };
}

/**
 * RFC 7009 §2.1: a refresh token revokes its whole grant ("SHOULD also invalidate all
 * access tokens based on the same authorization grant"); an access token is
 * denylisted by jti until it expires. Unknown tokens and other clients' tokens change
 * nothing (§2.2: "invalid tokens do not cause an error response").
 */
export async function revokeToken(token: string, caller: Client, services: TokenStatusServices): Promise<void> {
  const ref = refOf(token);
  if (ref) {
    const view = await services.store.readRefreshToken(ref);
    if (view && view.family.clientId === caller.clientId) await services.store.revokeGrant(ref.grantId, services.refreshTokenTtl);
    return;
  }
  const claims = await verifyOwnAccessToken(token, services.keystore, services.issuer, services.clock());
  if (!claims || claims.client_id !== caller.clientId) return;
  const remaining = claims.exp - Math.floor(services.clock() / 1000);
  await services.store.denylistAccessToken(claims.jti, remaining);
}

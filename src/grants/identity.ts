import type { Client } from '../clients/registry.js';
import type { IdTokens } from '../oidc/id-token.js';

/**
 * The ID token of a token response. OpenID Connect Core §3.1.3.3: a code issued for a
 * request with the `openid` scope is answered with an `id_token`; §12.2: a refresh of such a
 * grant returns a new one, with the same `sub` and `auth_time` and no `nonce`.
 */

/** Whether the grant is an OpenID Connect authentication (its scope has `openid`), whatever the token narrowed to. */
export function isAuthentication(grantScope: readonly string[]): boolean {
  return grantScope.includes('openid');
}

export interface GrantIdentity {
  readonly sub: string;
  readonly authTime: number;
  readonly sid?: string | undefined;
  readonly amr?: readonly string[] | undefined;
  /** Only for the code's ID token (§3.1.3.6), never a refresh's (§12.2). */
  readonly nonce?: string | undefined;
}

/** The ID token for `client`, in its `id_token_signed_response_alg`, beside `accessToken`. */
export function idTokenFor(idTokens: IdTokens, client: Client, identity: GrantIdentity, accessToken: string): Promise<string> {
  return idTokens.issue({
    sub: identity.sub,
    clientId: client.clientId,
    authTime: identity.authTime,
    nonce: identity.nonce,
    sid: identity.sid,
    amr: identity.amr,
    accessToken,
    algorithm: client.idTokenSignedResponseAlg,
  });
}

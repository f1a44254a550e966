import type { Client, GrantTypeName } from '../clients/registry.js';
import type { FormParams } from '../http/form.js';
import type { RefreshLifetimes, Store } from '../store/types.js';
import type { AccessTokenIssuer } from '../tokens/access-token.js';
import type { UserRegistry } from '../users/registry.js';
import type { PasswordSignIn } from '../users/sign-in.js';

/** RFC 6749 §5.1 successful token response. */
export interface TokenResponse {
  readonly access_token: string;
  readonly token_type: 'bearer';
  readonly expires_in: number;
  readonly scope?: string;
  readonly refresh_token?: string;
}

/** RFC 6749 §5.1: the successful response for an issued access token (and refresh token, if any). */
export function tokenResponse(
  issued: { readonly token: string; readonly expiresIn: number },
  scope: readonly string[],
  refreshToken?: string,
): TokenResponse {
  return {
    access_token: issued.token,
    token_type: 'bearer',
    expires_in: issued.expiresIn,
    ...(scope.length > 0 ? { scope: scope.join(' ') } : {}),
    ...(refreshToken !== undefined ? { refresh_token: refreshToken } : {}),
  };
}

/** What a grant may use; passed in, never imported, so grants stay testable in isolation. */
export interface GrantServices {
  readonly accessTokens: AccessTokenIssuer;
  readonly store: Store;
  readonly users: UserRegistry;
  /** Password sign-in with the limits shared with the login page. */
  readonly signIn: PasswordSignIn;
  readonly clock: () => number;
  readonly settings: {
    readonly refreshLifetimes: RefreshLifetimes;
    /** How long a revocation mark must outlive anything it revokes. */
    readonly refreshTokenTtl: number;
    /** REFRESH_REUSE_GRACE, in seconds (0: off); confidential clients only (see refreshReuseGraceSeconds). */
    readonly refreshReuseGrace: number;
  };
}

export interface GrantRequest {
  /** The authenticated client, already checked to have this grant type registered. */
  readonly client: Client;
  readonly params: FormParams;
  /** The client's network address (per TRUST_PROXY), for throttling. */
  readonly clientAddress: string;
}

/** One grant_type of the token endpoint: the route dispatches through a table of these. */
export interface Grant {
  readonly grantType: GrantTypeName;
  handle(request: GrantRequest, services: GrantServices): Promise<TokenResponse>;
}

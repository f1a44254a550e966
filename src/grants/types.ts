import type { Client, GrantTypeName } from '../clients/registry.js';
import type { DpopBinding } from '../dpop/token-endpoint.js';
import type { IssuingGrant, SecurityEvent } from '../events/types.js';
import type { FormParams } from '../oauth/form-params.js';
import type { TargetRequest } from '../resources/indicators.js';

/** RFC 6749 §5.1 successful token response. */
export interface TokenResponse {
  readonly access_token: string;
  /** RFC 9449 §5: "DPoP" for an access token bound to a DPoP key. */
  readonly token_type: 'bearer' | 'DPoP';
  /** RFC 6749 §5.1 RECOMMENDED; left out only for an upstream token whose provider did not say. */
  readonly expires_in?: number;
  readonly scope?: string;
  readonly refresh_token?: string;
  /** OpenID Connect Core §3.1.3.3: for a grant with the `openid` scope. */
  readonly id_token?: string;
  /** RFC 8693 §2.2.1: the type of the token a token exchange issued. */
  readonly issued_token_type?: string;
}

/** RFC 6749 §5.1: the successful response for an issued access token (and refresh token, if any). */
export function tokenResponse(
  issued: { readonly token: string; readonly expiresIn: number; readonly jkt?: string | undefined },
  scope: readonly string[],
  refreshToken?: string,
  idToken?: string,
): TokenResponse {
  return {
    access_token: issued.token,
    // RFC 9449 §5: "the token_type parameter in the token response [...] MUST be DPoP"
    token_type: issued.jkt !== undefined ? 'DPoP' : 'bearer',
    expires_in: issued.expiresIn,
    ...(scope.length > 0 ? { scope: scope.join(' ') } : {}),
    ...(refreshToken !== undefined ? { refresh_token: refreshToken } : {}),
    ...(idToken !== undefined ? { id_token: idToken } : {}),
  };
}

/** The `token.issued` event of an access token (and its refresh token, if one came with it). */
export function issuedEvent(
  grant: IssuingGrant,
  clientId: string,
  sub: string,
  issued: { readonly jti: string },
  target: { readonly scope: readonly string[]; readonly resources: readonly { readonly resource: string }[] },
  grantId?: string,
  refreshToken = false,
): SecurityEvent {
  return {
    event: 'token.issued',
    grant,
    clientId,
    sub,
    scope: target.scope,
    resource: target.resources.map((r) => r.resource),
    jti: issued.jti,
    ...(grantId !== undefined ? { grantId } : {}),
    refreshToken,
  };
}

/** The `resource` parameters (RFC 8707 §2.2: "for all grant types") and `scope` of a token request. */
export function targetRequest(params: FormParams): TargetRequest {
  return { resource: params.all('resource'), scope: params.get('scope') };
}

export interface GrantRequest {
  /** The authenticated client, already checked to have this grant type registered. */
  readonly client: Client;
  readonly params: FormParams;
  /** The client's network address (per TRUST_PROXY), for throttling. */
  readonly clientAddress: string;
  /** The key of a valid DPoP proof sent with the request (RFC 9449 §5); undefined without one. */
  readonly dpop: DpopBinding | undefined;
}

/**
 * One grant_type of the token endpoint: the route dispatches through a table of these.
 * Each grant is built with exactly the services it uses (see `grantTable`).
 */
export interface Grant {
  readonly grantType: GrantTypeName;
  handle(request: GrantRequest): Promise<TokenResponse>;
}

/** A request a grant serves without any client: its parameters, the address and the DPoP key. */
export type ClientlessGrantRequest = Omit<GrantRequest, 'client'>;

/**
 * A grant that serves some requests without any client (RFC 7521 §4.1: with an assertion
 * grant, "client authentication is optional"): the workload's JWT bearer grant. The token
 * route asks it first, and authenticates a client for every other request as before.
 */
export interface ClientlessGrant {
  readonly grantType: GrantTypeName;
  /**
   * Whether this request of its grant_type is one it serves without a client (cheap: nothing
   * verified yet); `clientPresented` says whether the request carries client credentials.
   * Throws InvalidRequest for a request that mixes the two.
   */
  serves(params: FormParams, clientPresented: () => boolean): boolean;
  handle(request: ClientlessGrantRequest): Promise<TokenResponse>;
}

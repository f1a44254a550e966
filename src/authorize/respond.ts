import { StoreUnavailableError, TemporarilyUnavailable } from '../errors.js';
import type { AuthorizationCodeStore } from '../store/types.js';
import type { AccessTokenIssuer } from '../tokens/access-token.js';
import { mintOpaqueToken, newGrantId } from '../tokens/opaque.js';
import type { AuthorizationRequest, Parameters } from './request.js';

/** The successful authorization response once the user has approved (RFC 6749 §4.1.2, §4.2.2). */

export interface AuthenticatedUser {
  readonly sub: string;
  /** Seconds since the epoch when the user signed in. */
  readonly authTime: number;
}

export interface AuthorizeServices {
  readonly store: AuthorizationCodeStore;
  readonly accessTokens: AccessTokenIssuer;
  readonly authorizationCodeTtl: number;
}

export async function approvedResponseParameters(
  request: AuthorizationRequest,
  user: AuthenticatedUser,
  services: AuthorizeServices,
): Promise<Parameters> {
  if (request.responseType === 'token') {
    // RFC 6749 §4.2.2: "The authorization server MUST NOT issue a refresh token."
    const issued = await services.accessTokens.issue({
      subject: user.sub,
      clientId: request.client.clientId,
      scope: request.scope,
      authTime: user.authTime,
    });
    return [
      ['access_token', issued.token],
      ['token_type', 'bearer'],
      ['expires_in', String(issued.expiresIn)],
      ...(request.scope.length ? [['scope', request.scope.join(' ')] as const] : []),
    ];
  }

  const code = mintOpaqueToken(newGrantId());
  try {
    await services.store.saveAuthorizationCode(
      code.ref,
      {
        clientId: request.client.clientId,
        redirectUri: request.redirectUri,
        redirectUriSent: request.redirectUriSent,
        scope: request.scope,
        sub: user.sub,
        authTime: user.authTime,
        codeChallenge: request.codeChallenge,
      },
      services.authorizationCodeTtl,
    );
  } catch (err) {
    // Fail closed: a code the store did not acknowledge is never handed out.
    if (err instanceof StoreUnavailableError) throw new TemporarilyUnavailable();
    throw err;
  }
  return [['code', code.value]];
}

import type { GrantIndexing } from '../grants/grant-index.js';
import type { AuthenticatedUser } from '../session/browser-session.js';
import type { AuthorizationCodeStore } from '../store/types.js';
import type { AccessTokens } from '../tokens/access-token.js';
import { mintOpaqueToken, newGrantId } from '../tokens/opaque.js';
import type { AuthorizationRequest, Parameters } from './request.js';

/** The successful authorization response once the user has approved (RFC 6749 §4.1.2, §4.2.2). */

export interface AuthorizationResponseDependencies {
  readonly codes: AuthorizationCodeStore;
  readonly accessTokens: AccessTokens;
  /** AUTHORIZATION_CODE_TTL, in seconds. */
  readonly authorizationCodeTtl: number;
  /** Lists each new grant under its user and client (grant administration). */
  readonly grantIndexing: GrantIndexing;
}

export async function approvedResponseParameters(
  request: AuthorizationRequest,
  user: AuthenticatedUser,
  deps: AuthorizationResponseDependencies,
): Promise<Parameters> {
  const grantId = newGrantId();
  const parties = { grantId, sub: user.sub, clientId: request.client.clientId };
  if (request.responseType === 'token') {
    // The token carries a grant id, so revoking the user's grants makes it inactive at introspection.
    await deps.grantIndexing.recordFor(parties, deps.accessTokens.longestLifetimeSeconds);
    // RFC 6749 §4.2.2: "The authorization server MUST NOT issue a refresh token."
    const issued = await deps.accessTokens.issue({
      subject: user.sub,
      clientId: request.client.clientId,
      scope: request.scope,
      authTime: user.authTime,
      grantId,
      resources: request.resources,
    });
    return [
      ['access_token', issued.token],
      ['token_type', 'bearer'],
      ['expires_in', String(issued.expiresIn)],
      ...(request.scope.length ? [['scope', request.scope.join(' ')] as const] : []),
    ];
  }

  // Listed until the code's last access token expires (a refresh family extends the entry).
  await deps.grantIndexing.recordFor(parties, deps.authorizationCodeTtl + deps.accessTokens.longestLifetimeSeconds);
  const code = mintOpaqueToken(grantId);
  // Fail closed: a code the store did not acknowledge is never handed out (a store
  // failure rejects, and the endpoint answers temporarily_unavailable).
  await deps.codes.saveAuthorizationCode(
    code.ref,
    {
      clientId: request.client.clientId,
      redirectUri: request.redirectUri,
      redirectUriSent: request.redirectUriSent,
      scope: request.scope,
      resources: request.resources.map((r) => r.resource),
      sub: user.sub,
      authTime: user.authTime,
      codeChallenge: request.codeChallenge,
    },
    deps.authorizationCodeTtl,
  );
  return [['code', code.value]];
}

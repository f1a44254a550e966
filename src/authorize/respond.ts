import type { GrantIndexing } from '../grants/grant-index.js';
import { isFederatedSubject } from '../identity/federated-subject.js';
import type { UpstreamTokenVault } from '../identity/token-vault.js';
import { AccessDenied, type OAuthError } from '../errors/index.js';
import type { SecurityEvents } from '../events/types.js';
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
  /** REFRESH_TOKEN_TTL, in seconds: how long the family a code starts lives after its redemption. */
  readonly refreshTokenTtl: number;
  /** Lists each new grant under its user and client (grant administration). */
  readonly grantIndexing: GrantIndexing;
  readonly events: SecurityEvents;
  /** Where a grant of a federated user takes its copy of the upstream tokens its session kept (keep_tokens). */
  readonly upstreamTokens?: Pick<UpstreamTokenVault, 'bindToGrant'> | undefined;
}

/** Each grant of a federated user's session takes its own copy of the upstream tokens, for as long as the grant can live. */
export async function bindUpstreamTokens(
  user: AuthenticatedUser,
  grantId: string,
  ttlSeconds: number,
  deps: Pick<AuthorizationResponseDependencies, 'upstreamTokens'>,
): Promise<void> {
  if (deps.upstreamTokens && user.sid !== undefined && isFederatedSubject(user.sub))
    await deps.upstreamTokens.bindToGrant(user.sid, grantId, ttlSeconds);
}

export async function approvedResponseParameters(
  request: AuthorizationRequest,
  user: AuthenticatedUser,
  deps: AuthorizationResponseDependencies,
): Promise<Parameters> {
  const grantId = newGrantId();
  const parties = { grantId, sub: user.sub, clientId: request.client.clientId, scope: request.scope, resources: request.resources };
  if (request.responseType === 'token') {
    // The token carries a grant id, so revoking the user's grants makes it inactive at introspection.
    await deps.grantIndexing.recordFor(parties, deps.accessTokens.longestLifetimeSeconds);
    await bindUpstreamTokens(user, grantId, deps.accessTokens.longestLifetimeSeconds, deps);
    // RFC 6749 §4.2.2: "The authorization server MUST NOT issue a refresh token."
    const issued = await deps.accessTokens.issue({
      subject: user.sub,
      clientId: request.client.clientId,
      scope: request.scope,
      authTime: user.authTime,
      grantId,
      resources: request.resources,
    });
    const target = { scope: request.scope, resource: request.resources.map((r) => r.resource) };
    const clientId = request.client.clientId;
    deps.events.emit({ event: 'authorization.approved', clientId, sub: user.sub, responseType: 'token', ...target });
    deps.events.emit({
      event: 'token.issued',
      grant: 'implicit',
      clientId,
      sub: user.sub,
      ...target,
      jti: issued.jti,
      grantId,
      refreshToken: false,
    });
    return [
      ['access_token', issued.token],
      ['token_type', 'bearer'],
      ['expires_in', String(issued.expiresIn)],
      ...(request.scope.length ? [['scope', request.scope.join(' ')] as const] : []),
    ];
  }

  // Listed for as long as the grant can reach, so the redemption writes no index: until the
  // code's last access token expires, or, for a client that gets refresh tokens, until the
  // last access token of a family started at the code's last moment expires.
  const reach = deps.authorizationCodeTtl + deps.accessTokens.longestLifetimeSeconds;
  const lifetime = request.client.grantTypes.has('refresh_token') ? reach + deps.refreshTokenTtl : reach;
  await deps.grantIndexing.recordFor(parties, lifetime);
  await bindUpstreamTokens(user, grantId, lifetime, deps);
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
      ...(request.dpopJkt !== undefined ? { dpopJkt: request.dpopJkt } : {}),
      ...(request.nonce !== undefined ? { nonce: request.nonce } : {}),
      ...(user.sid !== undefined ? { sid: user.sid } : {}),
      ...(user.amr !== undefined && user.amr.length > 0 ? { amr: user.amr } : {}),
    },
    deps.authorizationCodeTtl,
  );
  deps.events.emit({
    event: 'authorization.approved',
    clientId: request.client.clientId,
    sub: user.sub,
    responseType: 'code',
    scope: request.scope,
    resource: request.resources.map((r) => r.resource),
    grantId,
  });
  return [['code', code.value]];
}

/** RFC 6749 §4.1.2.1: the user said no; the error goes back to the client. */
export function deniedAuthorization(request: AuthorizationRequest, user: AuthenticatedUser, events: SecurityEvents): OAuthError {
  events.emit({ event: 'authorization.denied', clientId: request.client.clientId, sub: user.sub });
  return new AccessDenied('the user denied the request').redirectingTo(request);
}

import { InsufficientScope, InvalidDpopProof, InvalidToken } from '../errors/index.js';
import type { SubjectChecks } from '../users/subject-status.js';
import type { AccessTokenDenylist, GrantRevocation } from '../store/types.js';
import type { AccessTokens, OwnAccessTokenClaims } from '../tokens/access-token.js';
import { claimsForScopes } from './claims.js';

/**
 * The UserInfo endpoint (OpenID Connect Core 1.0 §5.3): the claims of the user an access
 * token stands for, as far as its scopes release them (§5.4). The token must be one we
 * issued, live (not expired, not revoked, its grant not revoked), issued for this server
 * (its audience: the issuer, or ACCESS_TOKEN_AUDIENCE, as tokens issued without `resource`
 * have it; a token bound to another resource is that resource's, not ours), with `openid`.
 */

/** Where a user's claims come from: the users file (and, later, what an upstream provider said). */
export interface ClaimsSource {
  claimsOf(sub: string): Promise<Readonly<Record<string, unknown>> | undefined>;
}

export interface UserinfoDependencies {
  readonly accessTokens: AccessTokens;
  readonly denylist: AccessTokenDenylist;
  readonly grants: GrantRevocation;
  /** The audiences a token must name one of: the issuer, ACCESS_TOKEN_AUDIENCE. */
  readonly audiences: readonly string[];
  readonly claims: ClaimsSource;
  /** The operator's marks: a disabled user's tokens get nothing more (in memory). */
  readonly subjects?: Pick<SubjectChecks, 'isDisabled'> | undefined;
}

/** How the token came: the Authorization scheme, and the DPoP proof check for a bound token. */
export interface PresentedToken {
  readonly token: string;
  readonly scheme: 'Bearer' | 'DPoP';
  /** Checks the request's DPoP proof for this token and key; throws InvalidDpopProof. */
  readonly checkProof: (jkt: string) => Promise<void>;
}

const INVALID = 'the access token is invalid, expired or revoked';

async function liveClaims(presented: PresentedToken, deps: UserinfoDependencies): Promise<OwnAccessTokenClaims> {
  const claims = await deps.accessTokens.verify(presented.token);
  if (!claims) throw new InvalidToken(INVALID);
  const audiences = typeof claims.aud === 'string' ? [claims.aud] : (claims.aud ?? []);
  if (!audiences.some((aud) => deps.audiences.includes(aud)))
    throw new InvalidToken(
      'the access token was issued for another resource: request one without resource (or with scope openid only) for userinfo',
    );
  const [denylisted, revoked] = await Promise.all([
    deps.denylist.isAccessTokenDenylisted(claims.jti),
    claims.grant_id ? deps.grants.isGrantRevoked(claims.grant_id) : Promise.resolve(false),
  ]);
  if (denylisted || revoked || deps.subjects?.isDisabled(claims.sub as string)) throw new InvalidToken(INVALID);
  return claims;
}

/** The userinfo response for `presented`, or the OAuthError a resource server answers (RFC 6750 §3.1, RFC 9449 §7.1). */
export async function userinfoClaims(
  presented: PresentedToken,
  deps: UserinfoDependencies,
): Promise<{ readonly response: Record<string, unknown>; readonly clientId: string }> {
  const claims = await liveClaims(presented, deps);
  const jkt = claims.cnf?.jkt;
  // RFC 9449 §7.1: a DPoP-bound token is accepted with the DPoP scheme and its proof only.
  if (jkt !== undefined) {
    if (presented.scheme !== 'DPoP')
      throw new InvalidToken('the access token is bound to a DPoP key: send it with the DPoP scheme and a proof');
    await presented.checkProof(jkt);
  } else if (presented.scheme === 'DPoP') {
    throw new InvalidDpopProof('the access token is not bound to a DPoP key: send it with the Bearer scheme');
  }
  const scopes = (claims.scope ?? '').split(' ').filter(Boolean);
  // §5.3: userinfo serves an access token "obtained from an OpenID Connect Authentication Request".
  if (!scopes.includes('openid')) throw new InsufficientScope('the access token was not granted the openid scope');
  const sub = claims.sub as string;
  const stored = (await deps.claims.claimsOf(sub)) ?? {};
  // §5.3.2: "The sub Claim MUST always be returned in the UserInfo Response."
  return { response: { ...claimsForScopes(stored, scopes), sub }, clientId: claims.client_id };
}

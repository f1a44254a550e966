import { type DpopPresentation, ReplayCacheUnavailableError, TokenVerificationError, type Verifier } from '@oauth2-token-service/verifier';
import { StoreUnavailableError } from '../errors/index.js';
import type { AdminScope } from '../oauth/admin-scopes.js';
import type { AccessTokenDenylist, GrantRevocation } from '../store/types.js';
import { ADMIN_ROLE, type RoleHolders } from '../users/roles.js';
import { type AdminActor, actorOf } from './audit.js';
import { AdminProblem } from './problems.js';

/**
 * Who may call the admin API: the bearer of an access token we issued for it (`aud` the
 * admin API's URL), Bearer or DPoP-bound (RFC 9449), verified by our own verifier package
 * (packages/verifier) against the keys we publish, with the scope the route needs
 * (`admin:read` for reads, `admin:write` for changes). As the resource server on the same
 * store, it also refuses a token that was revoked (its `jti`, or its grant) and a local
 * user's token once they no longer hold the role `admin`. Refusals are RFC 6750 / RFC 9449
 * challenges in `WWW-Authenticate`, and problem details in the body.
 */

export interface AdminCallerDependencies {
  /** Made with `resource` = the admin API's URL, `getKey` = our published keys, `dpop` = DPOP_SIGNING_ALGS. */
  readonly verifier: Verifier;
  readonly denylist: AccessTokenDenylist;
  readonly grants: GrantRevocation;
  readonly users: RoleHolders;
  readonly dpopAlgorithms: readonly string[];
}

/** The token of a request: RFC 6750 §2.1 `Bearer`, or RFC 9449 §7.1 `DPoP` with the proof and the request it came with. */
export interface PresentedAdminToken {
  readonly token: string;
  readonly dpop?: DpopPresentation | undefined;
}

function refused(err: TokenVerificationError, scope: AdminScope): AdminProblem {
  if (err.code === 'insufficient_scope')
    return new AdminProblem('insufficient-scope', `this request needs the scope ${scope}`, { wwwAuthenticate: err.wwwAuthenticate, scope });
  return new AdminProblem('unauthorized', err.description, { wwwAuthenticate: err.wwwAuthenticate });
}

/** The caller, or the AdminProblem to answer (401, 403, or 503 when the store cannot tell). */
export async function adminCaller(
  presented: PresentedAdminToken | undefined,
  scope: AdminScope,
  deps: AdminCallerDependencies,
): Promise<AdminActor> {
  const { verifier } = deps;
  if (!presented) {
    // RFC 6750 §3.1: "If the request lacks any authentication information [...] the resource
    // server SHOULD NOT include an error code or other error information."
    throw new AdminProblem('unauthorized', 'an access token for the admin API is required', {
      wwwAuthenticate: verifier.challenge({ requiredScopes: [scope] }),
    });
  }
  const invalid = (description: string) =>
    refused(
      new TokenVerificationError('invalid_token', description, {
        realm: verifier.realm,
        resourceMetadata: verifier.resourceMetadataUrl,
        dpopAlgorithms: presented.dpop ? deps.dpopAlgorithms : undefined,
      }),
      scope,
    );
  let claims;
  try {
    claims = await verifier.verify(presented.token, { requiredScopes: [scope], ...(presented.dpop ? { dpop: presented.dpop } : {}) });
  } catch (err) {
    if (err instanceof TokenVerificationError) throw refused(err, scope);
    if (err instanceof ReplayCacheUnavailableError) throw new StoreUnavailableError('the DPoP replay cache did not answer', { cause: err });
    throw err;
  }
  const [denylisted, revoked] = await Promise.all([
    deps.denylist.isAccessTokenDenylisted(claims.jti),
    typeof claims.grant_id === 'string' ? deps.grants.isGrantRevoked(claims.grant_id) : Promise.resolve(false),
  ]);
  if (denylisted || revoked) throw invalid('the access token was revoked');
  const user = deps.users.bySub(claims.sub);
  if (user && !user.roles.includes(ADMIN_ROLE)) throw invalid('the access token is of a user who no longer holds the role admin');
  return actorOf(claims);
}

import type { Client, TokenExchangePolicy } from '../clients/registry.js';
import { nowSeconds, type Clock } from '../clock.js';
import { InvalidGrant, InvalidRequest, InvalidTarget, ServerError } from '../errors/index.js';
import type { SecurityEvents } from '../events/types.js';
import type { FormParams } from '../oauth/form-params.js';
import type { ResourceLookup } from '../resources/indicators.js';
import type { RoleHolders } from '../users/roles.js';
import type { SubjectChecks } from '../users/subject-status.js';
import { heldTarget } from './held-target.js';
import type { AccessTokenDenylist, GrantRevocation } from '../store/types.js';
import type { AccessTokens, OwnAccessTokenClaims } from '../tokens/access-token.js';
import { type Grant, type GrantRequest, issuedEvent, type TokenResponse, tokenResponse } from './types.js';

/**
 * Token exchange (RFC 8693) for a resource server that calls another API on the user's
 * behalf: it presents the access token it received (the subject token) and gets one for
 * the downstream API, with the same `sub`, narrower or equal scope, no longer life, and
 * `act` naming it. Or, with `audience=upstream:{provider}`, the user's token at the
 * upstream identity provider they signed in through (kept by `keep_tokens`). Only a client
 * of CLIENTS_FILE with a `token_exchange` policy, and only within it.
 */

export { TOKEN_EXCHANGE_GRANT as TOKEN_EXCHANGE } from '../clients/token-exchange-policy.js';
import { TOKEN_EXCHANGE_GRANT } from '../clients/token-exchange-policy.js';
/** RFC 8693 §3: the only subject token type we take and the only type we issue. */
export const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';
/** `audience` values that ask for the user's token at an upstream identity provider. */
const UPSTREAM_AUDIENCE = 'upstream:';

export interface UpstreamTokenSource {
  /** The upstream access token the grant holds from `provider`, refreshed when expired; undefined: none (or not from `provider`). */
  tokenFor(
    grantId: string,
    provider: string,
  ): Promise<{ readonly accessToken: string; readonly expiresAt?: number | undefined; readonly scope?: string | undefined } | undefined>;
  /** Whether `provider` is configured now. */
  has(provider: string): boolean;
}

export interface TokenExchangeDependencies {
  readonly accessTokens: AccessTokens;
  readonly denylist: AccessTokenDenylist;
  readonly grants: GrantRevocation;
  readonly resources: ResourceLookup;
  /** Whose roles are read now (USERS_FILE): a user who lost `admin` cannot exchange for admin scopes. */
  readonly users: RoleHolders;
  readonly clock: Clock;
  readonly events: SecurityEvents;
  /** The operator's marks (in memory); none: nothing marked. */
  readonly subjects?: Pick<SubjectChecks, 'isDisabled'> | undefined;
  /** The upstream tokens kept by sign-in through identity providers; none without IDENTITY_PROVIDERS_FILE. */
  readonly upstream?: UpstreamTokenSource | undefined;
}

/** RFC 8693 §2.2.1: the response, with `issued_token_type`. */
type ExchangeResponse = TokenResponse & { readonly issued_token_type: string };

function single(params: FormParams, name: string): string | undefined {
  const values = params.all(name);
  // RFC 8693 §2.1 allows several resource and audience values; we issue for exactly one target.
  if (values.length > 1) throw new InvalidTarget(`name exactly one target: one ${name}`);
  return values[0];
}

/**
 * RFC 8693 §2.2.2: "If the request itself is not valid or if either the subject_token or
 * actor_token are invalid for any reason, or are unacceptable based on policy, the
 * invalid_request error code MUST be used."
 */
async function liveSubjectToken(
  params: FormParams,
  policy: TokenExchangePolicy,
  deps: TokenExchangeDependencies,
): Promise<OwnAccessTokenClaims> {
  const token = params.get('subject_token');
  const type = params.get('subject_token_type');
  if (token === undefined || type === undefined) throw new InvalidRequest('subject_token and subject_token_type are required');
  if (type !== ACCESS_TOKEN_TYPE) throw new InvalidRequest(`subject_token_type must be ${ACCESS_TOKEN_TYPE}`);
  const claims = await deps.accessTokens.verify(token);
  if (!claims) throw new InvalidRequest('subject_token is not an active access token of this server');
  const [denylisted, revoked] = await Promise.all([
    deps.denylist.isAccessTokenDenylisted(claims.jti),
    claims.grant_id ? deps.grants.isGrantRevoked(claims.grant_id) : Promise.resolve(false),
  ]);
  // A user the operator disabled gets nothing more, whatever token a resource server still holds.
  if (denylisted || revoked || deps.subjects?.isDisabled(claims.sub as string))
    throw new InvalidRequest('subject_token is not an active access token of this server');
  // The resource server exchanges the tokens that were sent to it, never another's.
  const audiences = typeof claims.aud === 'string' ? [claims.aud] : (claims.aud ?? []);
  if (!audiences.some((aud) => policy.subjectAudiences.includes(aud)))
    throw new InvalidRequest("subject_token was not issued for an audience this client's token_exchange policy accepts");
  return claims;
}

export function tokenExchangeGrant(deps: TokenExchangeDependencies): Grant {
  return {
    grantType: TOKEN_EXCHANGE_GRANT,
    async handle(request: GrantRequest): Promise<ExchangeResponse> {
      const { client, params } = request;
      const policy = client.tokenExchange;
      // CLIENTS_FILE refuses the grant without a policy; a client from elsewhere has neither.
      if (!policy) throw new ServerError();
      const requested = params.get('requested_token_type');
      if (requested !== undefined && requested !== ACCESS_TOKEN_TYPE)
        throw new InvalidRequest(`requested_token_type must be ${ACCESS_TOKEN_TYPE}: this server issues access tokens`);
      const subject = await liveSubjectToken(params, policy, deps);
      // RFC 9449 §6: a bound token is used only with its key; so is its exchange.
      if (subject.cnf?.jkt !== undefined && subject.cnf.jkt !== request.dpop?.jkt)
        throw new InvalidRequest('subject_token is bound to a DPoP key: send a DPoP proof signed with that key');
      const resource = single(params, 'resource');
      const audience = single(params, 'audience');
      if (resource !== undefined && audience !== undefined) throw new InvalidTarget('name the target with resource or audience, not both');
      const target = resource ?? audience;
      if (target === undefined) throw new InvalidRequest('resource or audience is required: the API the new token is for');
      if (target.startsWith(UPSTREAM_AUDIENCE)) return upstreamToken(client, policy, subject, target.slice(UPSTREAM_AUDIENCE.length), deps);
      return downstreamToken(request, policy, subject, target, deps);
    },
  };
}

async function downstreamToken(
  { client, params, dpop }: GrantRequest,
  policy: TokenExchangePolicy,
  subject: OwnAccessTokenClaims,
  target: string,
  deps: TokenExchangeDependencies,
): Promise<ExchangeResponse> {
  if (!policy.targetResources.includes(target))
    throw new InvalidTarget("the target is not among this client's token_exchange target_resources");
  // RFC 8693 §2.1 scope: within the subject token's (never wider) and what the target offers.
  const granted = { resources: [target], scope: (subject.scope ?? '').split(' ').filter(Boolean) };
  const sub = subject.sub as string;
  const { resources, scope } = heldTarget(
    { resource: [target], scope: params.get('scope') },
    { ...granted, sub, clientId: subject.client_id },
    deps,
  );
  // RFC 8693 §4.1: "act" names the acting party; an earlier actor nests inside it.
  const act = { sub: client.clientId, ...(subject.act !== undefined ? { act: subject.act } : {}) };
  const issued = await deps.accessTokens.issue({
    subject: sub,
    clientId: client.clientId,
    scope,
    resources,
    act,
    ...(typeof subject.auth_time === 'number' ? { authTime: subject.auth_time } : {}),
    // Revoking the user's grant ends the exchanged tokens too.
    ...(subject.grant_id !== undefined ? { grantId: subject.grant_id } : {}),
    expiresNoLaterThan: subject.exp,
    jkt: dpop?.jkt,
  });
  deps.events.emit(issuedEvent('token_exchange', client.clientId, sub, issued, { scope, resources }, subject.grant_id));
  deps.events.emit({
    event: 'token.exchanged',
    clientId: client.clientId,
    sub,
    subjectClientId: subject.client_id,
    target,
    jti: issued.jti,
  });
  return { ...tokenResponse(issued, scope), issued_token_type: ACCESS_TOKEN_TYPE };
}

/**
 * The user's access token at the upstream provider they signed in through, kept for the
 * subject token's grant (`keep_tokens`) and refreshed first when expired. Never a token of
 * another user: it is the grant's own copy.
 */
async function upstreamToken(
  client: Client,
  policy: TokenExchangePolicy,
  subject: OwnAccessTokenClaims,
  provider: string,
  deps: TokenExchangeDependencies,
): Promise<ExchangeResponse> {
  if (!policy.upstreamProviders.includes(provider) || !deps.upstream?.has(provider))
    throw new InvalidTarget("the identity provider is not among this client's token_exchange upstream_providers");
  const held = subject.grant_id === undefined ? undefined : await deps.upstream.tokenFor(subject.grant_id, provider);
  if (!held)
    throw new InvalidGrant(
      `the user holds no token of ${provider} here: they did not sign in through it, or it can no longer be refreshed`,
    );
  const sub = subject.sub as string;
  deps.events.emit({
    event: 'token.exchanged',
    clientId: client.clientId,
    sub,
    subjectClientId: subject.client_id,
    target: `${UPSTREAM_AUDIENCE}${provider}`,
  });
  const now = nowSeconds(deps.clock);
  return {
    access_token: held.accessToken,
    issued_token_type: ACCESS_TOKEN_TYPE,
    // RFC 8693 §2.2.1: the upstream's token is usable as a bearer token there.
    token_type: 'bearer',
    ...(held.expiresAt !== undefined ? { expires_in: Math.max(0, held.expiresAt - now) } : {}),
    ...(held.scope !== undefined ? { scope: held.scope } : {}),
  };
}

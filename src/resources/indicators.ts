import { InvalidScope, InvalidTarget } from '../errors/index.js';
import { isAdminScope, withoutAdminScopes } from '../oauth/admin-scopes.js';
import type { ProtectedResource } from './registry.js';
import { isIdentityScope, splitIdentityScopes } from '../oauth/identity-scopes.js';
import { assertScopeAllowed, formatScope, parseRequestedScope, scopeOutside } from '../oauth/scope.js';

/**
 * Resource indicators (RFC 8707): which registered resources a request names, and the
 * scope it may have there. Pure: the registry is passed in.
 */

export interface ResourceLookup {
  get(resource: string): ProtectedResource | undefined;
}

/** What a token is for: its audience (no resource: ACCESS_TOKEN_AUDIENCE) and its scope. */
export interface AccessTarget {
  readonly resources: readonly ProtectedResource[];
  readonly scope: readonly string[];
}

/** A request's `resource` values (every non-empty one, repeats allowed) and its `scope`. */
export interface TargetRequest {
  readonly resource: readonly string[];
  readonly scope: string | undefined;
}

/** What a code or refresh family recorded (records from before resource indicators have no `resources`). */
export interface GrantedTarget {
  readonly resources?: readonly string[];
  readonly scope: readonly string[];
}

const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;

function checkIndicator(value: string): void {
  // RFC 8707 §2: "Its value MUST be an absolute URI, as specified by Section 4.3 of [RFC3986]."
  if (!SCHEME.test(value) || !URL.canParse(value)) throw new InvalidTarget('resource must be an absolute URI (RFC 8707 section 2)');
  // RFC 8707 §2: "The URI MUST NOT include a fragment component."
  if (value.includes('#')) throw new InvalidTarget('resource must not include a fragment (RFC 8707 section 2)');
}

/**
 * RFC 8707 §2.1: "If the authorization server fails to parse the provided value(s) or does
 * not consider the resource(s) acceptable, it should reject the request with an error
 * response using the error code "invalid_target"". We always do: a resource is acceptable
 * only when registered, under exactly the string sent.
 */
function registered(value: string, registry: ResourceLookup, unknown: string): ProtectedResource {
  const resource = registry.get(value);
  if (!resource) throw new InvalidTarget(unknown);
  return resource;
}

/** The scopes the resources accept, each once, in order. */
export function offeredScope(resources: readonly ProtectedResource[]): string[] {
  return [...new Set(resources.flatMap((r) => r.scope))];
}

/**
 * The scope for `resources` within `limit` (what the client, or the grant, may have;
 * undefined: no limit but the resources). Without resources: RFC 6749 §3.3 as before. With
 * resources, in this order: a scope outside the §3.3 grammar or outside `limit` is
 * `invalid_scope`; a scope that none of the resources accepts is `invalid_target` (RFC 8707
 * §2: it "can also be used to inform the client that it has requested an invalid
 * combination of resource and scope"). Without `scope`, the default is everything within
 * `limit` that the resources accept.
 */
function scopeAtResources(
  requested: string | undefined,
  limit: readonly string[] | undefined,
  resources: readonly ProtectedResource[],
): readonly string[] {
  if (resources.length === 0) return scopeWithoutResource(requested, limit ?? []);
  const offered = offeredScope(resources);
  if (requested === undefined) return (limit ?? offered).filter((token) => offered.includes(token));
  const scope = parseRequestedScope(requested);
  if (limit) assertScopeAllowed(scope, limit);
  const notOffered = scopeOutside(scope, offered);
  if (notOffered.length > 0) throw new InvalidTarget(`scope not offered by the requested resources: ${notOffered.join(' ')}`);
  return scope;
}

/**
 * The scope of a token for no resource, within `allowed`. RFC 6749 §3.3: "If the client
 * omits the scope parameter when requesting authorization, the authorization server MUST
 * either process the request using a pre-defined default value or fail the request
 * indicating an invalid scope." The default is everything allowed, but the admin API's
 * scopes: a token for no resource has ACCESS_TOKEN_AUDIENCE as its audience, where they mean
 * nothing, so asked for they are `invalid_scope` with a hint (RFC 8707's `resource` names the API).
 */
function scopeWithoutResource(requested: string | undefined, allowed: readonly string[]): readonly string[] {
  if (requested === undefined) return allowed.some(isAdminScope) ? withoutAdminScopes(allowed) : allowed;
  const tokens = parseRequestedScope(requested);
  const admin = tokens.filter(isAdminScope);
  if (admin.length > 0)
    throw new InvalidScope(`${admin.join(' ')} is a scope of the admin API: request it with the admin API as resource (RFC 8707)`);
  assertScopeAllowed(tokens, allowed);
  return tokens;
}

/**
 * A new authorization (authorization endpoint, client_credentials, password): every
 * `resource` must be a registered resource (RFC 8707 §2.1 at the authorization endpoint,
 * §2.2 at the token endpoint, where "Multiple "resource" parameters MAY be used").
 *
 * A client registered with a `scope` stays limited to it. A client registered without one
 * (a Client ID Metadata Document, an MCP client publishing one document for every server)
 * may, where the user consents (`userConsents`), request any scope the requested resources
 * accept: the consent page is the gate. Without consent (client_credentials, password) or
 * without a resource, its registration allows no scope, as before.
 */
export function resolveNewTarget(
  request: TargetRequest,
  registeredScope: readonly string[],
  registry: ResourceLookup,
  userConsents: boolean,
): AccessTarget {
  const resources = [...new Set(request.resource)].map((value) => {
    checkIndicator(value);
    return registered(value, registry, 'resource is not registered at this authorization server');
  });
  const limit = registeredScope.length === 0 && userConsents ? undefined : registeredScope;
  if (!userConsents || request.scope === undefined) return { resources, scope: scopeAtResources(request.scope, limit, resources) };
  // The identity scopes (OpenID Connect) are the user's to share on the consent page: never
  // held against the resources or the client's registered scope.
  const { identity, resource } = splitIdentityScopes(parseRequestedScope(request.scope));
  if (identity.length === 0) return { resources, scope: scopeAtResources(request.scope, limit, resources) };
  const others = resource.length > 0 ? scopeAtResources(formatScope(resource), limit, resources) : [];
  return { resources, scope: [...identity, ...others] };
}

/**
 * A token from an existing grant (authorization_code, refresh_token). RFC 8707 §2.2: "such
 * policy may limit the acceptable resources to those that were originally granted by the
 * resource owner or a subset thereof [...] the authorization server will issue an access
 * token based on that subset of requested resources, whereas any refresh token that is
 * returned is bound to the full original grant." We do: a subset narrows the token, a
 * resource outside the grant is `invalid_target`, and no `resource` means every resource
 * of the grant. A granted resource the operator has since removed gets no new token. The
 * scope narrows as RFC 6749 §6 says, then to what the named resources accept.
 */
export function narrowGrantTarget(received: TargetRequest, grant: GrantedTarget, registry: ResourceLookup): AccessTarget {
  const request = { resource: received.resource, scope: ignoringOfflineAccess(received.scope, grant.scope) };
  const granted = grant.resources ?? [];
  const forUserinfo = identityOnly(request);
  if (forUserinfo) {
    // A token for the user's own identity (userinfo), whatever resources the grant has: its
    // audience is ACCESS_TOKEN_AUDIENCE, its scope identity scopes the grant holds (RFC 6749 §6).
    assertScopeAllowed(forUserinfo, grant.scope);
    return { resources: [], scope: forUserinfo };
  }
  const named = request.resource.length > 0 ? [...new Set(request.resource)] : granted;
  const resources = named.map((value) => {
    checkIndicator(value);
    if (!granted.includes(value)) throw new InvalidTarget('resource was not part of this authorization grant');
    return registered(value, registry, 'resource is no longer registered at this authorization server');
  });
  return { resources, scope: scopeAtResources(request.scope, grant.scope, resources) };
}

/**
 * SEP-2207: MCP clients "MAY add offline_access to the scope parameter of the authorization
 * and token requests". It asks for a refresh token, not for access: at the token endpoint,
 * for a grant that does not hold it, it is ignored (the client's grant_types decide), never
 * `invalid_scope`. Only alone it leaves no `scope`: the grant's, as without one.
 */
function ignoringOfflineAccess(scope: string | undefined, granted: readonly string[]): string | undefined {
  if (scope === undefined || !scope.includes('offline_access') || granted.includes('offline_access')) return scope;
  const rest = parseRequestedScope(scope).filter((token) => token !== 'offline_access');
  return rest.length > 0 ? formatScope(rest) : undefined;
}

/**
 * A token request that names no resource and only identity scopes (`scope=openid email`):
 * the client asks for a token to read the user's claims at userinfo, not for a resource.
 * Undefined for any other request.
 */
function identityOnly(request: TargetRequest): string[] | undefined {
  if (request.resource.length > 0 || request.scope === undefined) return undefined;
  const scope = parseRequestedScope(request.scope);
  return scope.length > 0 && scope.every(isIdentityScope) ? scope : undefined;
}

import { JWT_BEARER_GRANT } from '../clients/token-exchange-policy.js';
import { InvalidGrant, InvalidTarget } from '../errors/index.js';
import type { SecurityEvents } from '../events/types.js';
import { accessDecision, rolesOf } from '../identity/access-rules.js';
import { federatedSubject } from '../identity/federated-subject.js';
import { IdJagRefused, type IdJagVerifier, type VerifiedIdJag } from '../identity/id-jag.js';
import { profileOf } from '../identity/profile.js';
import type { ProviderConfig } from '../identity/providers.js';
import { type ResourceLookup, resolveNewTarget } from '../resources/indicators.js';
import type { AccessTokens } from '../tokens/access-token.js';
import { type RoleHolders, scopeForUser } from '../users/roles.js';
import { newGrantId } from '../tokens/opaque.js';
import type { SubjectChecks } from '../users/subject-status.js';
import type { GrantIndexing } from './grant-index.js';
import { USER_DISABLED } from './refresh-rotation.js';
import { type Grant, type GrantRequest, issuedEvent, tokenResponse } from './types.js';

/**
 * The JWT bearer grant (RFC 7523 §2.1) with an Identity Assertion JWT Authorization Grant
 * (draft-ietf-oauth-identity-assertion-authz-grant; MCP Enterprise-Managed Authorization):
 * a confidential client trades the ID-JAG its company's identity provider issued for an
 * access token here. No browser and no consent page: the identity provider's policy
 * decided, and we narrow it to what the client and the resource may have.
 *
 * The user is the one who signs in through that provider in a browser (the same `fed_`
 * subject), held to the provider's access rules. No refresh token: the client asks its
 * identity provider for a new ID-JAG. The token carries a grant id, listed for the grants
 * command, so revoking the grant ends it.
 */

export interface JwtBearerDependencies {
  readonly idJag: IdJagVerifier;
  /** The provider configurations (for the access rules), by id; undefined once removed. */
  readonly providerConfig: (id: string) => ProviderConfig | undefined;
  readonly accessTokens: AccessTokens;
  readonly resources: ResourceLookup;
  /** USERS_FILE's users (an ID-JAG's user is federated: its roles come from the provider's `roles` rules on the ID-JAG's claims). */
  readonly users: RoleHolders;
  readonly grantIndexing: GrantIndexing;
  readonly events: SecurityEvents;
  /** A federated user the operator disabled gets nothing (in memory). */
  readonly subjects: SubjectChecks;
}

/** One description for every refused ID-JAG: RFC 7521 §4.1.1, invalid_grant, "The provided authorization grant [...] is invalid". */
const REFUSED = 'the assertion is not a valid ID-JAG for this client';

/**
 * The resources of the token: those the request names, each one the ID-JAG names too (when
 * it names any); without `resource`, those of the ID-JAG. Registration is checked by
 * resolveNewTarget (invalid_target for one of no registered resource).
 */
function targetResources(requested: readonly string[], granted: readonly string[]): readonly string[] {
  if (requested.length === 0) return granted;
  const outside = granted.length > 0 ? requested.filter((r) => !granted.includes(r)) : [];
  if (outside.length > 0) throw new InvalidTarget('resource is not one the assertion names');
  return requested;
}

export function jwtBearerGrant(deps: JwtBearerDependencies): Grant {
  async function verified({ client, params }: GrantRequest): Promise<VerifiedIdJag & { readonly roles: readonly string[] }> {
    // RFC 7523 §2.1: "The value of the "assertion" parameter MUST contain a single JWT."
    const assertion = params.require('assertion');
    try {
      const idJag = await deps.idJag.verify(assertion, client.clientId);
      const config = deps.providerConfig(idJag.providerId);
      const decision = config ? accessDecision(config, { profile: profileOf(idJag.claims), claims: idJag.claims }) : undefined;
      if (!decision?.allowed)
        throw new IdJagRefused('refused', `refused by the provider's access rules: ${decision?.reason ?? 'provider removed'}`);
      return { ...idJag, roles: config ? rolesOf(config, idJag) : [] };
    } catch (err) {
      if (!(err instanceof IdJagRefused)) throw err;
      deps.events.emit({ event: 'assertion.refused', grant: 'jwt_bearer', clientId: client.clientId, reason: err.reason });
      throw new InvalidGrant(REFUSED, { cause: err });
    }
  }

  return {
    grantType: JWT_BEARER_GRANT,
    async handle(request) {
      const { client, params, dpop } = request;
      const idJag = await verified(request);
      // The scope: the ID-JAG's, within the client's registered scope and what the resources accept.
      const limit = client.scope.filter((token) => idJag.scope.includes(token));
      const { resources, scope: requested } = resolveNewTarget(
        { resource: targetResources(params.all('resource'), idJag.resources), scope: params.get('scope') },
        limit,
        deps.resources,
        false,
      );
      const sub = federatedSubject(idJag.providerId, idJag.subject);
      if (deps.subjects.isDisabled(sub)) throw new InvalidGrant(USER_DISABLED);
      const scope = scopeForUser(requested, { sub, clientScope: client.scope, decidedRoles: idJag.roles }, deps.users);
      const grantId = newGrantId();
      await deps.grantIndexing.recordFor(
        { grantId, sub, clientId: client.clientId, scope, resources },
        deps.accessTokens.longestLifetimeSeconds,
      );
      const issued = await deps.accessTokens.issue({
        subject: sub,
        clientId: client.clientId,
        scope,
        grantId,
        resources,
        jkt: dpop?.jkt,
        ...(idJag.authTime !== undefined ? { authTime: idJag.authTime } : {}),
      });
      deps.events.emit(issuedEvent('jwt_bearer', client.clientId, sub, issued, { scope, resources }, grantId, false));
      // draft §4.4: the authorization server "SHOULD NOT" return a refresh token.
      return tokenResponse(issued, scope);
    },
  };
}

import { JWT_BEARER_GRANT } from '../clients/token-exchange-policy.js';
import { InvalidGrant, InvalidRequest, InvalidScope } from '../errors/index.js';
import type { SecurityEvents } from '../events/types.js';
import type { FormParams } from '../oauth/form-params.js';
import { formatScope, parseRequestedScope } from '../oauth/scope.js';
import { type ResourceLookup, resolveNewTarget } from '../resources/indicators.js';
import { WORKLOAD_CLIENT_PREFIX } from '../shared/workload-prefix.js';
import type { AccessTokens } from '../tokens/access-token.js';
import { isIdJag, peekAssertion, WorkloadRefused } from '../workloads/assertion.js';
import type { TrustedIssuers, VerifiedWorkload, WorkloadAssertions } from '../workloads/verifier.js';
import { type ClientlessGrant, issuedEvent, tokenResponse } from './types.js';

/**
 * The JWT bearer grant (RFC 7523 §2.1) with a workload's own JWT (MCP Workload Identity
 * Federation): a Kubernetes service account token, a GitHub Actions OIDC token, a SPIFFE
 * JWT-SVID, traded without any client for an access token for one of the resources the
 * matching rule of WORKLOAD_TRUSTS_FILE names. "This approach eliminates the need for: Client
 * credentials [...] Client identifiers (client_id)": a request that authenticates a client
 * with a workload's JWT is refused (invalid_request), so the two never mix; an ID-JAG (typ
 * oauth-id-jag+jwt) keeps its own path, which needs its client (src/grants/jwt-bearer.ts).
 *
 * The token's `sub` is the workload's, its `client_id` `workload:{trust id}` (no client's id
 * may begin so) and `iss_trust` the trust: a resource server tells a workload from a user by
 * either. No refresh token: the workload asks its platform for a fresh JWT.
 */

export interface WorkloadGrantDependencies {
  readonly trusts: TrustedIssuers & { readonly size: number };
  readonly assertions: Pick<WorkloadAssertions, 'verify' | 'spend'>;
  readonly accessTokens: AccessTokens;
  readonly resources: ResourceLookup;
  /** Whether `sub` is a user's sub or a client's id here (then the workload's token would pass for theirs). */
  readonly subjectTaken: (sub: string) => boolean;
  readonly events: SecurityEvents;
}

/** One description for every refused workload (RFC 7521 §4.1.1: invalid_grant), whatever check failed. */
export const WORKLOAD_REFUSED = 'the assertion is not valid, or the workload may not have the requested resource';

/** The scope: what the request names within the rule's (none named: the rule's), within what the resources accept. */
function scopeRequest(requested: string | undefined, ruleScope: readonly string[]): string | undefined {
  if (requested === undefined) return undefined;
  const granted = parseRequestedScope(requested).filter((token) => ruleScope.includes(token));
  if (granted.length === 0) throw new InvalidScope('none of the requested scope is allowed for this workload');
  return formatScope(granted);
}

export function workloadGrant(deps: WorkloadGrantDependencies): ClientlessGrant {
  /** Whether the request is a workload's: a JWT bearer grant whose assertion is not an ID-JAG, with trusts configured. */
  function serves(params: FormParams, clientPresented: () => boolean): boolean {
    if (deps.trusts.size === 0) return false;
    const peeked = peekAssertion(params.get('assertion') ?? '');
    if (isIdJag(peeked)) return false;
    if (!clientPresented()) return true;
    const iss = peeked?.claims.iss;
    if (typeof iss === 'string' && deps.trusts.byIssuer(iss))
      throw new InvalidRequest('a workload assertion is sent without any client authentication: no client_id, no client credentials');
    return false;
  }

  async function admitted(assertion: string, requested: readonly string[]): Promise<VerifiedWorkload> {
    const workload = await deps.assertions.verify(assertion);
    const refuse = (reason: 'resource_not_allowed' | 'subject_collision', message: string) =>
      new WorkloadRefused(reason, message, { trust: workload.trust.id, sub: workload.sub });
    if (requested.some((resource) => !workload.rule.resources.includes(resource)))
      throw refuse('resource_not_allowed', 'a requested resource is not one of the rule');
    if (deps.subjectTaken(workload.sub)) throw refuse('subject_collision', 'the workload sub is a user or client subject here');
    return workload;
  }

  return {
    grantType: JWT_BEARER_GRANT,
    serves,
    async handle({ params, clientAddress, dpop }) {
      // RFC 7523 §2.1: "The value of the "assertion" parameter MUST contain a single JWT."
      const assertion = params.require('assertion');
      const requested = params.all('resource');
      // The extension's token request names the MCP server: the rule decides which ones a workload may have.
      if (requested.length === 0) throw new InvalidRequest('resource is required: the resource server the token is for (RFC 8707)');
      const refused = (err: unknown) => {
        if (!(err instanceof WorkloadRefused)) return err;
        const { reason, trust, sub } = err;
        deps.events.emit({
          event: 'workload.refused',
          reason,
          ...(trust ? { trust } : {}),
          ...(sub ? { sub } : {}),
          address: clientAddress,
        });
        return new InvalidGrant(WORKLOAD_REFUSED, { cause: err });
      };
      let workload: VerifiedWorkload;
      try {
        workload = await admitted(assertion, requested);
      } catch (err) {
        throw refused(err);
      }
      const { trust, rule, sub } = workload;
      const ruleScope = parseRequestedScope(rule.scope);
      // Each resource registered (invalid_target otherwise), and the scope within what they accept.
      const { resources, scope } = resolveNewTarget(
        { resource: requested, scope: scopeRequest(params.get('scope'), ruleScope) },
        ruleScope,
        deps.resources,
        false,
      );
      await deps.assertions.spend(workload).catch((err: unknown) => Promise.reject(refused(err)));
      const clientId = `${WORKLOAD_CLIENT_PREFIX}${trust.id}`;
      const issued = await deps.accessTokens.issue({ subject: sub, clientId, scope, resources, jkt: dpop?.jkt, issTrust: trust.id });
      deps.events.emit(issuedEvent('workload', clientId, sub, issued, { scope, resources }));
      return tokenResponse(issued, scope);
    },
  };
}

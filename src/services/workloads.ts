import type { Clock } from '../clock.js';
import { isDynamicClientId } from '../clients/registered-client.js';
import type { Config } from '../config/index.js';
import type { Endpoints } from '../endpoints.js';
import type { SecurityEvents } from '../events/types.js';
import type { ClientlessGrant } from '../grants/types.js';
import { workloadGrant } from '../grants/workload.js';
import { isFederatedSubject } from '../identity/federated-subject.js';
import type { ResourceLookup } from '../resources/indicators.js';
import type { AccessTokens } from '../tokens/access-token.js';
import { WorkloadKeys } from '../workloads/keys.js';
import { WorkloadAssertions } from '../workloads/verifier.js';
import type { ServiceDependencies } from './index.js';

/**
 * Workload identity federation: the trusts of WORKLOAD_TRUSTS_FILE and of the admin API (both
 * may be emptied and filled again: the grant stays, and serves nothing while there is none).
 */
export function workloadServices(
  config: Config,
  deps: Pick<ServiceDependencies, 'workloads' | 'store' | 'users' | 'clients' | 'outboundFetch'>,
  context: {
    readonly endpoints: Endpoints;
    readonly clock: Clock;
    readonly accessTokens: AccessTokens;
    readonly resources: ResourceLookup;
    readonly events: SecurityEvents;
  },
): ClientlessGrant | undefined {
  const { workloads: trusts, users, clients } = deps;
  if (!trusts) return undefined;
  const { clock } = context;
  const keys = new WorkloadKeys({
    allowInsecure: config.workloadTrusts.allowInsecure,
    ca: deps.outboundFetch?.ca,
    resolve: deps.outboundFetch?.resolve,
    clock,
  });
  const assertions = new WorkloadAssertions(trusts, keys, deps.store, {
    issuer: config.issuer,
    tokenEndpoint: context.endpoints.url('token'),
    clock,
  });
  return workloadGrant({
    trusts,
    assertions,
    accessTokens: context.accessTokens,
    resources: context.resources,
    events: context.events,
    // The subjects other tokens carry: users' (USERS_FILE, fed_ for upstream sign-ins) and client_credentials clients' ids.
    subjectTaken: (sub) =>
      isFederatedSubject(sub) ||
      users.bySub(sub) !== undefined ||
      clients.get(sub)?.grantTypes.has('client_credentials') === true ||
      isDynamicClientId(sub),
  });
}

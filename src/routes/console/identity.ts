import type { AdminApi } from '../../admin/api.js';
import type { DiscoveryChecks } from '../../console/discovery.js';
import type { SecurityEvents } from '../../events/types.js';
import type { ConsoleRoute } from './declare.js';
import { providerPages } from './providers.js';
import { userPages } from './users.js';
import { workloadTrustPages } from './workload-trusts.js';

/**
 * The console's pages of who signs in and what is trusted: users, identity providers and
 * workload trusts, each over the admin API's own operations (src/admin/api.ts), each change
 * the admin API's audit event with the signed-in person as actor.
 */

export interface IdentityPagesDependencies {
  readonly api: Pick<AdminApi, 'users' | 'providers' | 'workloadTrusts'>;
  readonly events: SecurityEvents;
  /** How the pages name the files whose entries are read-only here (their paths). */
  readonly files: { readonly users: string; readonly providers: string; readonly workloads: string };
  /** A provider's name, by id (a federated user's page). */
  readonly providerName: (id: string) => string | undefined;
  /** `{ISSUER}/oauth2/upstream/{id}/callback`: the redirect URI registered at the provider. */
  readonly redirectUriOf: (id: string) => string;
  readonly discovery: DiscoveryChecks;
}

/** The pages, in the order of the navigation. */
export function identityPages(deps: IdentityPagesDependencies): ConsoleRoute[] {
  return [...userPages(deps), ...providerPages(deps), ...workloadTrustPages(deps)];
}

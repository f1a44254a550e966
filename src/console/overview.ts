import type { EntrySource } from '../registry/registry.js';
import type { ClientRegistrationStore, GrantIndex, UpstreamStore } from '../store/types.js';
import { CONSOLE_CLIENT_ID } from './client.js';

/**
 * What the console's overview counts: clients and users by where they are declared (a file,
 * or the store through the admin API), the clients registered at the registration endpoint
 * and the federated users (each listing counted, not read: one command each), identity
 * providers, and the live grants of the declared clients (each client's grant index counted:
 * one command per client). Every number comes from this instance's registries (followed from
 * the store) and the store.
 */

export interface BySource {
  readonly file: number;
  readonly store: number;
}

export interface OverviewCounts {
  readonly clients: BySource & {
    /** The console itself, a client of this server. */
    readonly builtIn: number;
    /** Registered at the registration endpoint (RFC 7591) and unexpired. */
    readonly registered: number;
  };
  readonly users: BySource & {
    /** Signed in through an upstream provider, their profile still kept. */
    readonly federated: number;
  };
  readonly providers: number;
  /**
   * Grants listed in the grant indexes of the clients counted here (revoked ones leave the
   * index when it is next read): self-registered clients and metadata documents are not counted.
   */
  readonly activeGrants: number;
}

interface Listed {
  listed(): readonly { readonly key: string; readonly source: EntrySource }[];
}

export interface OverviewDependencies {
  readonly clients: Listed;
  readonly users: Listed;
  readonly providers?: Listed | undefined;
  readonly grantIndex: Pick<GrantIndex, 'countGrants'>;
  readonly registrations: Pick<ClientRegistrationStore, 'countClientRegistrations'>;
  readonly federatedUsers: Pick<UpstreamStore, 'countFederatedUsers'>;
}

function bySource(registry: Listed): BySource {
  const held = registry.listed();
  return { file: held.filter((entry) => entry.source === 'file').length, store: held.filter((entry) => entry.source === 'store').length };
}

export async function overviewCounts(deps: OverviewDependencies): Promise<OverviewCounts> {
  const clientIds = [...deps.clients.listed().map((entry) => entry.key), CONSOLE_CLIENT_ID];
  const [registered, federated, ...grants] = await Promise.all([
    deps.registrations.countClientRegistrations(),
    deps.federatedUsers.countFederatedUsers(),
    ...clientIds.map((clientId) => deps.grantIndex.countGrants({ clientId })),
  ]);
  return {
    clients: { ...bySource(deps.clients), builtIn: 1, registered },
    users: { ...bySource(deps.users), federated },
    providers: deps.providers?.listed().length ?? 0,
    activeGrants: grants.reduce((sum, count) => sum + count, 0),
  };
}

import type { EntrySource } from '../registry/registry.js';
import type { GrantIndex } from '../store/types.js';
import { CONSOLE_CLIENT_ID } from './client.js';

/**
 * What the console's overview counts: clients and users by where they are declared (a file,
 * or the store through the admin API), identity providers, and the live grants of those
 * clients (each client's grant index counted, not read: one command per client). Every
 * number comes from this instance's registries (followed from the store) and the store.
 */

export interface BySource {
  readonly file: number;
  readonly store: number;
}

export interface OverviewCounts {
  readonly clients: BySource & {
    /** The console itself, a client of this server. */
    readonly builtIn: number;
  };
  readonly users: BySource;
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
}

function bySource(registry: Listed): BySource {
  const held = registry.listed();
  return { file: held.filter((entry) => entry.source === 'file').length, store: held.filter((entry) => entry.source === 'store').length };
}

export async function overviewCounts(deps: OverviewDependencies): Promise<OverviewCounts> {
  const clientIds = [...deps.clients.listed().map((entry) => entry.key), CONSOLE_CLIENT_ID];
  const grants = await Promise.all(clientIds.map((clientId) => deps.grantIndex.countGrants({ clientId })));
  return {
    clients: { ...bySource(deps.clients), builtIn: 1 },
    users: bySource(deps.users),
    providers: deps.providers?.listed().length ?? 0,
    activeGrants: grants.reduce((sum, count) => sum + count, 0),
  };
}

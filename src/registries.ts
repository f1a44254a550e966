import { ClientRegistry, ReloadableClients } from './clients/registry.js';
import { assertDistinctSubjects, type RegistrySources } from './clients/subjects.js';
import { ReloadableResources, ResourceRegistry } from './resources/registry.js';
import { ReloadableUsers, UserRegistry } from './users/registry.js';

/**
 * The clients, users and protected resources a server reads, and their reload from
 * CLIENTS_FILE, USERS_FILE and RESOURCES_FILE on SIGHUP. Each file reloads on its own: one that fails to load keeps its
 * previous registry while the other is still reloaded. The pair served must keep
 * client ids and user subjects apart (src/oauth/subjects.ts): a reload that would put a
 * client_credentials client id and a user's sub together keeps the previous registries.
 * Results are returned, not logged: this module knows no logger.
 */

export interface RegistryFiles {
  /** Undefined: clients given in code (the dev entry's demo client) or none; never reloaded. */
  readonly clients: string | undefined;
  readonly users: string | undefined;
  readonly resources?: string | undefined;
}

export type RegistryName = 'clients' | 'users' | 'resources';

export type RegistryReload =
  | { readonly registry: RegistryName; readonly file: string; readonly ok: true; readonly count: number }
  | { readonly registry: RegistryName; readonly file: string; readonly ok: false; readonly error: Error };

type Loaded<R> = { readonly ok: true; readonly registry: R } | { readonly ok: false; readonly error: Error };

async function attempt<R>(load: () => Promise<R>): Promise<Loaded<R>> {
  try {
    return { ok: true, registry: await load() };
  } catch (err) {
    return { ok: false, error: err as Error };
  }
}

export class Registries {
  private constructor(
    readonly clients: ReloadableClients,
    readonly users: ReloadableUsers,
    readonly resources: ReloadableResources,
    private readonly files: RegistryFiles,
    private readonly sources: RegistrySources,
  ) {}

  /** Loads all three (throwing on anything unusable, or on a client whose id is a user's sub). */
  static async open(
    files: RegistryFiles,
    given: {
      clients?: ClientRegistry | undefined;
      users?: UserRegistry | undefined;
      resources?: ResourceRegistry | undefined;
      sources: RegistrySources;
    },
  ): Promise<Registries> {
    const clients = given.clients ?? (files.clients ? await ClientRegistry.load(files.clients) : new ClientRegistry([]));
    const users = given.users ?? (files.users ? await UserRegistry.load(files.users) : UserRegistry.fromEntries([]));
    const resources =
      given.resources ?? (files.resources ? await ResourceRegistry.load(files.resources) : ResourceRegistry.fromEntries([]));
    assertDistinctSubjects(clients.all(), users.all(), given.sources);
    const reloadable = {
      clients: given.clients ? undefined : files.clients,
      users: given.users ? undefined : files.users,
      resources: given.resources ? undefined : files.resources,
    };
    return new Registries(
      ReloadableClients.holding(clients),
      ReloadableUsers.holding(users),
      ReloadableResources.holding(resources),
      reloadable,
      given.sources,
    );
  }

  private previousReload: Promise<unknown> = Promise.resolve();

  /**
   * Re-reads the files; one result per file, in the order clients, users, resources. Reloads run one
   * after the other, so a slow read from an earlier SIGHUP never replaces a later one.
   */
  reload(): Promise<RegistryReload[]> {
    const reload = this.previousReload.then(() => this.reloadNow());
    this.previousReload = reload.catch(() => undefined);
    return reload;
  }

  private async reloadNow(): Promise<RegistryReload[]> {
    const { clients: clientsFile, users: usersFile, resources: resourcesFile } = this.files;
    const [clients, users, resources] = await Promise.all([
      clientsFile ? attempt(() => ClientRegistry.load(clientsFile)) : undefined,
      usersFile ? attempt(() => UserRegistry.load(usersFile)) : undefined,
      resourcesFile ? attempt(() => ResourceRegistry.load(resourcesFile)) : undefined,
    ]);
    // Resources are independent of the other two: a valid file is always taken.
    if (resources?.ok) this.resources.replace(resources.registry);
    const nextClients = clients?.ok ? clients.registry : this.clients;
    const nextUsers = users?.ok ? users.registry : this.users;
    let collision: Error | undefined;
    try {
      assertDistinctSubjects(nextClients.all(), nextUsers.all(), this.sources);
    } catch (err) {
      collision = err as Error;
    }
    if (!collision) {
      if (clients?.ok) this.clients.replace(clients.registry);
      if (users?.ok) this.users.replace(users.registry);
    }
    const result = (registry: RegistryName, file: string | undefined, loaded: Loaded<{ all(): unknown[] }> | undefined) => {
      if (!file || !loaded) return [];
      if (!loaded.ok) return [{ registry, file, ok: false, error: loaded.error } as const];
      if (collision) return [{ registry, file, ok: false, error: collision } as const];
      return [{ registry, file, ok: true, count: loaded.registry.all().length } as const];
    };
    const resourcesResult =
      resourcesFile && resources
        ? [
            resources.ok
              ? ({ registry: 'resources', file: resourcesFile, ok: true, count: resources.registry.all().length } as const)
              : ({ registry: 'resources', file: resourcesFile, ok: false, error: resources.error } as const),
          ]
        : [];
    return [...result('clients', clientsFile, clients), ...result('users', usersFile, users), ...resourcesResult];
  }
}

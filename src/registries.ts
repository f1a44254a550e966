import { ClientRegistry } from './clients/registry.js';
import { ProviderRegistry } from './identity/providers.js';
import { assertDistinctSubjects, type RegistrySources } from './clients/subjects.js';
import type { Registry } from './registry/registry.js';
import { ResourceRegistry } from './resources/registry.js';
import { UserRegistry } from './users/registry.js';
import { WorkloadTrustRegistry } from './workloads/trusts.js';
import { type ClientsRefusal, loadAtStart, type RegistryFiles, type RegistryName } from './registry-files.js';

/**
 * The registries a server reads — CLIENTS_FILE, USERS_FILE, RESOURCES_FILE,
 * IDENTITY_PROVIDERS_FILE, WORKLOAD_TRUSTS_FILE — and their reload on SIGHUP. Each file reloads on its own: one that fails to load keeps its previous
 * entries while the others are still reloaded. The clients and users served must keep
 * client ids and user subjects apart (src/clients/subjects.ts): a reload that would put a
 * client_credentials client id and a user's sub together keeps the previous pair.
 * Results are returned, not logged: this module knows no logger.
 */

export { type ClientsRefusal, type RegistryFiles, registryFilesOf, type RegistryName } from './registry-files.js';

export type RegistryReload =
  | {
      readonly registry: RegistryName;
      readonly file: string;
      readonly ok: true;
      readonly count: number;
      /** Entries the reload added whose id the store's entries hold (the admin API had it first): left out; absent when none. */
      readonly refused?: readonly string[];
    }
  | { readonly registry: RegistryName; readonly file: string; readonly ok: false; readonly error: Error };

type Loaded<R> = { readonly ok: true; readonly registry: R } | { readonly ok: false; readonly error: Error };

/** One registry as held: the instance every reader has, and the file it is reloaded from (none: given in code). */
interface Held<R extends Registry<unknown>> {
  readonly name: RegistryName;
  readonly registry: R;
  readonly file: string | undefined;
  readonly load: (file: string) => Promise<R>;
}

/** The file's new contents, loaded (or why not); nothing when it is not reloaded. */
async function reread<R extends Registry<unknown>>(held: Held<R>): Promise<Loaded<R> | undefined> {
  const { file } = held;
  if (file === undefined) return undefined;
  try {
    return { ok: true, registry: await held.load(file) };
  } catch (err) {
    return { ok: false, error: err as Error };
  }
}

/** What a reload of `held` reports: the count it now serves, or why it kept the previous entries. */
function outcome(
  held: Held<Registry<unknown>>,
  loaded: Loaded<Registry<unknown>> | undefined,
  taken: { readonly refused?: readonly string[]; readonly collision?: Error | undefined },
): RegistryReload[] {
  if (held.file === undefined || !loaded) return [];
  const { name: registry, file } = held;
  if (!loaded.ok) return [{ registry, file, ok: false, error: loaded.error }];
  if (taken.collision) return [{ registry, file, ok: false, error: taken.collision }];
  const refused = taken.refused ?? [];
  return [{ registry, file, ok: true, count: loaded.registry.size - refused.length, ...(refused.length > 0 ? { refused } : {}) }];
}

/** Takes a reloaded file's entries into the registry served; the keys refused (the store holds them). */
function take<R extends Registry<unknown>>(held: Held<R>, loaded: Loaded<R> | undefined): readonly string[] {
  return loaded?.ok ? held.registry.replace(loaded.registry) : [];
}

export class Registries {
  private previousReload: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly held: {
      clients: Held<ClientRegistry>;
      users: Held<UserRegistry>;
      resources: Held<ResourceRegistry>;
      providers: Held<ProviderRegistry>;
      workloads: Held<WorkloadTrustRegistry>;
    },
    private readonly sources: RegistrySources,
    private readonly refuseClients: ClientsRefusal | undefined,
  ) {}

  get clients(): ClientRegistry {
    return this.held.clients.registry;
  }

  get users(): UserRegistry {
    return this.held.users.registry;
  }

  get resources(): ResourceRegistry {
    return this.held.resources.registry;
  }

  get providers(): ProviderRegistry {
    return this.held.providers.registry;
  }

  get workloads(): WorkloadTrustRegistry {
    return this.held.workloads.registry;
  }

  /** Loads all five (throwing on anything unusable, or on a client whose id is a user's sub). */
  static async open(
    files: RegistryFiles,
    given: {
      clients?: ClientRegistry | undefined;
      users?: UserRegistry | undefined;
      resources?: ResourceRegistry | undefined;
      providers?: ProviderRegistry | undefined;
      sources: RegistrySources;
      /** Why a reloaded CLIENTS_FILE may not be served (production without SESSION_SECRET); undefined: it may. */
      refuseClients?: ClientsRefusal | undefined;
    },
  ): Promise<Registries> {
    const clients =
      given.clients ?? (files.clients ? await loadAtStart('clients', files.clients, ClientRegistry.load) : new ClientRegistry([]));
    const users = given.users ?? (files.users ? await loadAtStart('users', files.users, UserRegistry.load) : UserRegistry.fromEntries([]));
    const loadResources = (file: string) => ResourceRegistry.load(file, { reserved: files.reservedResources });
    const resources =
      given.resources ??
      (files.resources ? await loadAtStart('resources', files.resources, loadResources) : ResourceRegistry.fromEntries([]));
    const loadProviders = (file: string) => ProviderRegistry.load(file, { allowHttp: files.providersAllowHttp ?? false });
    const providers =
      given.providers ?? (files.providers ? await loadAtStart('providers', files.providers, loadProviders) : ProviderRegistry.empty());
    const loadWorkloads = (file: string) => WorkloadTrustRegistry.load(file, { allowHttp: files.workloadsAllowHttp ?? false });
    const workloads = files.workloads ? await loadAtStart('workloads', files.workloads, loadWorkloads) : WorkloadTrustRegistry.empty();
    assertDistinctSubjects(clients.all(), users.all(), given.sources);
    return new Registries(
      {
        clients: { name: 'clients', registry: clients, file: given.clients ? undefined : files.clients, load: ClientRegistry.load },
        users: { name: 'users', registry: users, file: given.users ? undefined : files.users, load: UserRegistry.load },
        resources: {
          name: 'resources',
          registry: resources,
          file: given.resources ? undefined : files.resources,
          load: loadResources,
        },
        providers: {
          name: 'providers',
          registry: providers,
          file: given.providers ? undefined : files.providers,
          load: loadProviders,
        },
        workloads: { name: 'workloads', registry: workloads, file: files.workloads, load: loadWorkloads },
      },
      given.sources,
      given.refuseClients,
    );
  }

  /**
   * Re-reads the files; one result per file, in the order clients, users, resources, providers, workloads. Reloads run one
   * after the other, so a slow read from an earlier SIGHUP never replaces a later one.
   */
  reload(): Promise<RegistryReload[]> {
    const reload = this.previousReload.then(() => this.reloadNow());
    this.previousReload = reload.catch(() => undefined);
    return reload;
  }

  private async reloadNow(): Promise<RegistryReload[]> {
    const { clients, users, resources, providers, workloads } = this.held;
    const [readClients, nextUsers, nextResources, nextProviders, nextWorkloads] = await Promise.all([
      reread(clients),
      reread(users),
      reread(resources),
      reread(providers),
      reread(workloads),
    ]);
    // Resources, providers and workload trusts are independent of the other two: a valid file is always taken.
    const refusedResources = take(resources, nextResources);
    const refusedProviders = take(providers, nextProviders);
    const refusedWorkloads = take(workloads, nextWorkloads);
    const refusal = readClients?.ok ? this.refuseClients?.(readClients.registry.all()) : undefined;
    const nextClients: Loaded<ClientRegistry> | undefined = refusal === undefined ? readClients : { ok: false, error: new Error(refusal) };
    const pair = {
      clients: nextClients?.ok ? nextClients.registry : clients.registry,
      users: nextUsers?.ok ? nextUsers.registry : users.registry,
    };
    let collision: Error | undefined;
    try {
      assertDistinctSubjects(pair.clients.all(), pair.users.all(), this.sources);
    } catch (err) {
      collision = err as Error;
    }
    const refusedClients = collision ? [] : take(clients, nextClients);
    const refusedUsers = collision ? [] : take(users, nextUsers);
    return [
      ...outcome(clients, nextClients, { refused: refusedClients, collision }),
      ...outcome(users, nextUsers, { refused: refusedUsers, collision }),
      ...outcome(resources, nextResources, { refused: refusedResources }),
      ...outcome(providers, nextProviders, { refused: refusedProviders }),
      ...outcome(workloads, nextWorkloads, { refused: refusedWorkloads }),
    ];
  }
}

/** What a reload says in the log: counts and reasons, an entry's id when it is refused, never its content. */
export function logReloads(
  results: readonly RegistryReload[],
  reason: string,
  log: { info(fields: object, message: string): void; error(fields: object, message: string): void },
): void {
  for (const result of results) {
    if (result.ok) {
      log.info({ reason, file: result.file, [result.registry]: result.count }, `${result.registry} reloaded`);
      for (const id of result.refused ?? [])
        log.error(
          { reason, file: result.file, id },
          `${result.registry} reload: an entry added to the file is refused, its id is the admin API's (in the store)`,
        );
    } else {
      const { registry, file, error } = result;
      log.error({ reason, file, err: { message: error.message } }, `${registry} reload failed; keeping the previous ${registry}`);
    }
  }
}

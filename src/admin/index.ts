import type { ClientRegistry } from '../clients/registry.js';
import type { Clock } from '../clock.js';
import type { SealedSecrets } from '../entries/sealed-secrets.js';
import type { EntrySync } from '../entries/sync.js';
import type { ProviderRegistry } from '../identity/providers.js';
import type { ResourceRegistry } from '../resources/registry.js';
import type { Store } from '../store/types.js';
import type { UserRegistry } from '../users/registry.js';
import { WorkloadTrustRegistry } from '../workloads/trusts.js';
import { AdminClients } from './clients.js';
import { type AdminApi, adminApi } from './api.js';
import { EntryWriter } from './entries.js';
import { AdminProviders } from './providers.js';
import { AdminResources } from './resources.js';
import { AdminUsers } from './users.js';
import { AdminWorkloadTrusts } from './workload-trusts.js';

/**
 * The admin services (no HTTP): what the admin API and the console call. Each takes validated
 * JSON (the entry documents of the files), writes the store, applies the change to this
 * instance at once and answers the entry as stored, or throws an AdminProblem.
 */

export interface AdminDependencies {
  readonly store: Pick<
    Store,
    'entries' | 'grantIndex' | 'consents' | 'clientRegistrations' | 'upstream' | 'revokeGrant' | 'isGrantRevoked' | 'revokeKnownGrant'
  >;
  readonly sync: EntrySync;
  readonly registries: {
    readonly clients: ClientRegistry;
    readonly users: UserRegistry;
    readonly resources: ResourceRegistry;
    readonly providers?: ProviderRegistry | undefined;
    readonly workloads?: WorkloadTrustRegistry | undefined;
  };
  /** ENTRIES_ENCRYPTION_KEY: provider secrets; undefined: no provider can be stored. */
  readonly secrets: SealedSecrets | undefined;
  /** IDENTITY_PROVIDERS_ALLOW_INSECURE. */
  readonly providersAllowHttp: boolean;
  /** WORKLOAD_TRUSTS_ALLOW_INSECURE. */
  readonly workloadsAllowHttp: boolean;
  /** Whether dynamically registered clients exist (DYNAMIC_CLIENT_REGISTRATION not off): their ids are taken. */
  readonly registrations: boolean;
  /** The built-in resources' identifiers (`{ISSUER}/admin/v1`): no resource entry may take one. */
  readonly reservedResources: readonly string[];
  /** The least time a grant's revocation mark is kept (as `grants revoke`). */
  readonly revocationMarkSeconds: number;
  readonly clock: Clock;
  /** How conflicts name the files (their paths), by registry. */
  readonly files: {
    readonly clients: string;
    readonly users: string;
    readonly resources: string;
    readonly providers: string;
    readonly workloads: string;
  };
}

export interface AdminServices {
  readonly clients: AdminClients;
  readonly users: AdminUsers;
  readonly resources: AdminResources;
  readonly providers: AdminProviders;
  readonly workloadTrusts: AdminWorkloadTrusts;
  /** The admin API's operations over these (views, ETags, merge patches, merged lists). */
  readonly api: AdminApi;
  /** How the files are named (their paths): where a read-only entry is changed. */
  readonly files: AdminDependencies['files'];
}

export function adminServices(deps: AdminDependencies): AdminServices {
  const { store, registries, clock, files } = deps;
  const writer = new EntryWriter(store.entries, deps.sync);
  const grants = {
    index: store.grantIndex,
    revocation: store,
    consents: store.consents,
    revocationMarkSeconds: deps.revocationMarkSeconds,
    clock,
  };
  const registrations = deps.registrations ? store.clientRegistrations : undefined;
  const services = {
    clients: new AdminClients({
      writer,
      clients: registries.clients,
      users: registries.users,
      registrations,
      grants,
      file: files.clients,
    }),
    users: new AdminUsers({ writer, users: registries.users, clients: registries.clients, grants, clock, file: files.users }),
    resources: new AdminResources({
      writer,
      resources: registries.resources,
      file: files.resources,
      reserved: deps.reservedResources,
    }),
    providers: new AdminProviders({
      writer,
      providers: registries.providers,
      secrets: deps.secrets,
      allowHttp: deps.providersAllowHttp,
      file: files.providers,
    }),
    workloadTrusts: new AdminWorkloadTrusts({
      writer,
      // Without one, store trusts are validated and kept, and served once a registry follows them.
      trusts: registries.workloads ?? WorkloadTrustRegistry.empty(),
      allowHttp: deps.workloadsAllowHttp,
      file: files.workloads,
    }),
  };
  const api = adminApi({
    writer,
    services,
    registries: { ...registries, providers: registries.providers, workloads: registries.workloads },
    registrations,
    federated: store.upstream,
  });
  return { ...services, api, files };
}

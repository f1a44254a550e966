import type { z } from 'zod';
import type { ClientRegistry } from '../clients/registry.js';
import { SEALED_CLIENT_SECRET } from '../entries/registries.js';
import { ProviderReplacementSchema } from '../identity/providers.js';
import type { HeldEntry } from '../registry/registry.js';
import { ResourceSchema } from '../resources/registry.js';
import type { ClientRegistrationStore, UpstreamStore } from '../store/types.js';
import type { UserRegistry } from '../users/registry.js';
import { WorkloadTrustSchema } from '../workloads/trusts.js';
import { ClientsApi } from './clients-api.js';
import type { AdminClients } from './clients.js';
import { EntriesApi } from './entries-api.js';
import type { EntryWriter } from './entries.js';
import type { AdminProviders } from './providers.js';
import type { AdminResources } from './resources.js';
import { UsersApi } from './users-api.js';
import type { AdminUsers } from './users.js';
import type { AdminWorkloadTrusts } from './workload-trusts.js';

/**
 * The admin API's operations in its own terms (views with their source, ETags, If-Match,
 * merge patches, merged lists), over the admin services that validate and write
 * (src/admin/index.ts); the routes of src/routes/admin/ call these.
 */

type Listed = { held(key: string): HeldEntry<unknown> | undefined; listed(): HeldEntry<unknown>[] };

export interface AdminApiDependencies {
  readonly writer: EntryWriter;
  readonly services: {
    readonly clients: AdminClients;
    readonly users: AdminUsers;
    readonly resources: AdminResources;
    readonly providers: AdminProviders;
    readonly workloadTrusts: AdminWorkloadTrusts;
  };
  readonly registries: {
    readonly clients: ClientRegistry;
    readonly users: UserRegistry;
    readonly resources: Listed;
    readonly providers: Listed | undefined;
    readonly workloads: Listed | undefined;
  };
  readonly registrations: ClientRegistrationStore | undefined;
  readonly federated: Pick<UpstreamStore, 'listFederatedUsers' | 'findFederatedUser' | 'findFederatedProfile'>;
}

export interface AdminApi {
  readonly clients: ClientsApi;
  readonly users: UsersApi;
  readonly resources: EntriesApi;
  readonly providers: EntriesApi;
  readonly workloadTrusts: EntriesApi;
}

/** A document with every default of its schema (as declared when it no longer validates). */
const normalizedBy =
  (schema: z.ZodType) =>
  (document: Readonly<Record<string, unknown>>): Record<string, unknown> => {
    const parsed = schema.safeParse(document);
    return parsed.success ? { ...(parsed.data as Record<string, unknown>) } : { ...document };
  };

/** A provider as answered: never its secret, in clear or sealed; `client_secret_set` says it has one. */
export function providerView(document: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const { client_secret: secret, [SEALED_CLIENT_SECRET]: sealed, ...rest } = document;
  return { ...normalizedBy(ProviderReplacementSchema)(rest), client_secret_set: secret !== undefined || sealed !== undefined };
}

export function adminApi(deps: AdminApiDependencies): AdminApi {
  const { writer, services, registries } = deps;
  return {
    clients: new ClientsApi({ service: services.clients, writer, registry: registries.clients, registrations: deps.registrations }),
    users: new UsersApi({ service: services.users, writer, registry: registries.users, federated: deps.federated }),
    resources: new EntriesApi({
      kind: 'resource',
      registry: registries.resources,
      service: services.resources,
      writer,
      view: normalizedBy(ResourceSchema),
    }),
    providers: new EntriesApi({
      kind: 'provider',
      registry: registries.providers,
      service: services.providers,
      writer,
      view: providerView,
    }),
    workloadTrusts: new EntriesApi({
      kind: 'workload_trust',
      registry: registries.workloads,
      service: services.workloadTrusts,
      writer,
      view: normalizedBy(WorkloadTrustSchema),
    }),
  };
}

import { type AdminServices, adminServices } from '../admin/index.js';
import type { Clock } from '../clock.js';
import type { Config } from '../config/index.js';
import { endpointsOf } from '../endpoints.js';
import { type FollowedRegistries, followEntries } from '../entries/registries.js';
import { SealedSecrets } from '../entries/sealed-secrets.js';
import { EntrySync } from '../entries/sync.js';
import type { Store } from '../store/types.js';
import { SubjectStatus } from '../users/subject-status.js';
import type { ServiceDependencies, ServiceLog } from './index.js';

/**
 * The admin API's entries on this instance: the sync that keeps the in-process copy of the
 * store's entries (src/entries/), the registries following it, the operator's marks on
 * subjects, and the admin services writing them.
 */

export interface EntriesServices {
  readonly sync: EntrySync;
  /** Disabled users and revoked sessions, in memory: the session, sign-in and refresh checks. */
  readonly subjects: SubjectStatus;
  readonly admin: AdminServices;
  /** Made here (no `entrySync` given): buildServer stops it when it closes. */
  readonly owned: boolean;
}

const secretsOf = (config: Config) =>
  config.entries.encryptionKey === undefined ? undefined : new SealedSecrets(config.entries.encryptionKey);

/** The admin services of a server with this configuration, over its store, sync and registries. */
export function adminServicesFor(
  config: Config,
  deps: { readonly store: Store; readonly sync: EntrySync; readonly registries: FollowedRegistries; readonly clock: Clock },
): AdminServices {
  return adminServices({
    ...deps,
    secrets: secretsOf(config),
    providersAllowHttp: config.identityProviders.allowInsecure,
    workloadsAllowHttp: config.workloadTrusts.allowInsecure,
    registrations: config.dynamicClientRegistration !== 'off',
    reservedResources: [endpointsOf(config.issuer).url('admin')],
    // As long as any grant can live: a refresh family, or a code and the access token it yields (as `grants revoke`).
    revocationMarkSeconds: Math.max(config.refreshTokenTtl, config.authorizationCodeTtl + config.accessTokenTtl),
    files: {
      clients: config.clientsFile ?? 'CLIENTS_FILE',
      users: config.usersFile ?? 'USERS_FILE',
      resources: config.resourcesFile ?? 'RESOURCES_FILE',
      providers: config.identityProviders.file ?? 'IDENTITY_PROVIDERS_FILE',
      workloads: config.workloadTrusts.file ?? 'WORKLOAD_TRUSTS_FILE',
    },
  });
}

export function entriesServices(
  config: Config,
  deps: ServiceDependencies,
  context: {
    readonly log: ServiceLog;
    readonly clock: Clock;
    readonly resources: FollowedRegistries['resources'];
    readonly workloads: FollowedRegistries['workloads'];
  },
): EntriesServices {
  const { log, clock, resources } = context;
  const sync = deps.entrySync ?? new EntrySync(deps.store.entries, { intervalSeconds: config.entries.syncIntervalSeconds });
  const registries = { clients: deps.clients, users: deps.users, resources, providers: deps.providers, workloads: context.workloads };
  const marks = followEntries(sync, registries, {
    log,
    secrets: secretsOf(config),
    providersAllowHttp: config.identityProviders.allowInsecure,
    workloadsAllowHttp: config.workloadTrusts.allowInsecure,
  });
  sync.start(log);
  return {
    sync,
    subjects: new SubjectStatus(deps.users, marks),
    admin: adminServicesFor(config, { store: deps.store, sync, registries, clock }),
    owned: deps.entrySync === undefined,
  };
}

/**
 * At start, the entries are there before the first request when the store answers (else the
 * sync logged one line, and catches up when it answers). Provider entries need the key their
 * secrets are sealed under: without it the start fails (the error names the variable).
 */
export async function entriesAtStart(sync: EntrySync, config: Config): Promise<Error | undefined> {
  await sync.ready(Math.max(3 * config.redisCommandTimeoutMs, 1000));
  const providers = sync.entries('provider').length;
  if (providers === 0 || config.entries.encryptionKey !== undefined) return undefined;
  return new Error(
    `ENTRIES_ENCRYPTION_KEY: the store holds ${providers} identity provider entries, whose client secrets are sealed under it: set it (the key they were sealed with)`,
  );
}

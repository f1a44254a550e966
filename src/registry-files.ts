import type { Client } from './clients/client.js';
import type { Config } from './config/index.js';

/** What names the registry files a server reads (src/registries.ts): the variables, the paths, and the errors at start. */

export interface RegistryFiles {
  /** Undefined: clients given in code (the dev entry's demo client) or none; never reloaded. */
  readonly clients: string | undefined;
  readonly users: string | undefined;
  readonly resources?: string | undefined;
  readonly providers?: string | undefined;
  /** IDENTITY_PROVIDERS_ALLOW_INSECURE: providers at http:// URLs. */
  readonly providersAllowHttp?: boolean | undefined;
  /** The identifiers of the server's built-in resources (its admin API): RESOURCES_FILE may not name them. */
  readonly reservedResources?: readonly string[] | undefined;
  readonly workloads?: string | undefined;
  /** WORKLOAD_TRUSTS_ALLOW_INSECURE: issuers and keys at http:// URLs. */
  readonly workloadsAllowHttp?: boolean | undefined;
}

/** The line saying why `clients` may not be served; undefined when they may. */
export type ClientsRefusal = (clients: readonly Client[]) => string | undefined;

/** The files the configuration names; `reservedResources`: the built-in resources' identifiers. */
export function registryFilesOf(config: Config, reservedResources: readonly string[] = []): RegistryFiles {
  const { identityProviders, workloadTrusts } = config;
  return {
    clients: config.clientsFile,
    users: config.usersFile,
    resources: config.resourcesFile,
    providers: identityProviders.file,
    providersAllowHttp: identityProviders.allowInsecure,
    reservedResources,
    workloads: workloadTrusts.file,
    workloadsAllowHttp: workloadTrusts.allowInsecure,
  };
}

export type RegistryName = 'clients' | 'users' | 'resources' | 'providers' | 'workloads';

/** The variable that names each file: a file that cannot be used at start is reported under it. */
const VARIABLES: Record<RegistryName, string> = {
  clients: 'CLIENTS_FILE',
  users: 'USERS_FILE',
  resources: 'RESOURCES_FILE',
  providers: 'IDENTITY_PROVIDERS_FILE',
  workloads: 'WORKLOAD_TRUSTS_FILE',
};

/** Loads a registry at start; its errors name the variable (`USERS_FILE: /srv/users.json: no such file`). */
export async function loadAtStart<R>(name: RegistryName, file: string, load: (file: string) => Promise<R>): Promise<R> {
  try {
    return await load(file);
  } catch (err) {
    const error = err as Error;
    error.message = error.message
      .split('\n')
      .map((line) => `${VARIABLES[name]}: ${line}`)
      .join('\n');
    throw error;
  }
}

import type { WorkloadTrust } from './trusts.js';

interface Settings {
  readonly workloadTrusts: { readonly allowInsecure: boolean };
}

/**
 * What a server says at start about its workload trusts: the setting only development should
 * use, and each resource a rule names that RESOURCES_FILE does not register (a workload
 * asking for it gets invalid_target: the resources are checked when a token is asked for, as
 * both files reload on their own).
 */
export function warnAboutWorkloadTrusts(
  config: Settings,
  trusts: { all(): readonly WorkloadTrust[] },
  resources: { get(resource: string): unknown },
  log: { warn(message: string): void },
): void {
  if (config.workloadTrusts.allowInsecure) {
    log.warn(
      'WORKLOAD_TRUSTS_ALLOW_INSECURE=true: workload issuers and their keys may be fetched over http:// and from loopback or private addresses; for development and tests only',
    );
  }
  for (const trust of trusts.all()) {
    const unknown = [...new Set(trust.rules.flatMap((rule) => rule.resources))].filter((resource) => resources.get(resource) === undefined);
    for (const resource of unknown)
      log.warn(
        `workload trust "${trust.id}" names the resource ${resource}, which RESOURCES_FILE does not register: no token is issued for it`,
      );
  }
}

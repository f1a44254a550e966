import { z } from 'zod';
import type { EntriesApi } from '../../admin/entries-api.js';
import type { AdminRoute } from '../../admin/routes.js';
import { WorkloadTrustSchema } from '../../workloads/trusts.js';
import { ENTRY_META, entryRoutes } from './entries.js';

/**
 * `/admin/v1/workload-trusts`: the issuers whose workloads may trade their JWTs for tokens
 * (MCP Workload Identity Federation), the fields of WORKLOAD_TRUSTS_FILE; one trust per
 * issuer, whichever source holds it.
 */

const TrustView = z.object({ ...WorkloadTrustSchema.shape, ...ENTRY_META }).strict();

export function workloadTrustRoutes(api: EntriesApi, adminUrl: string): AdminRoute[] {
  return entryRoutes({
    api,
    entity: 'workload_trust',
    plural: 'workload-trusts',
    singular: 'workload trust',
    operation: { one: 'WorkloadTrust', many: 'WorkloadTrusts' },
    key: 'id',
    keyDescription: "The trust's id",
    create: WorkloadTrustSchema,
    replace: WorkloadTrustSchema,
    view: TrustView,
    adminUrl,
    file: 'WORKLOAD_TRUSTS_FILE',
  });
}

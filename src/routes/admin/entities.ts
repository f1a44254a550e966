import type { AdminApi } from '../../admin/api.js';
import type { AdminGrantsDependencies } from '../../admin/grants.js';
import type { AdminRoute } from '../../admin/routes.js';
import type { Clock } from '../../clock.js';
import type { Keystore } from '../../keys/keystore.js';
import { clientRoutes } from './clients.js';
import { grantRoutes } from './grants.js';
import { keyRoutes } from './keys.js';
import { providerRoutes } from './providers.js';
import { resourceRoutes } from './resources.js';
import { userRoutes } from './users.js';
import { workloadTrustRoutes } from './workload-trusts.js';

/** Every entity plugin's routes of the admin API, as `registerAdminApi` serves them and the OpenAPI document lists them. */

export interface AdminEntities {
  readonly api: AdminApi;
  readonly grants: AdminGrantsDependencies;
  readonly keystore: Keystore;
  readonly clock: Clock;
  /** `{ISSUER}/admin/v1`: Location headers. */
  readonly adminUrl: string;
}

export function adminEntityRoutes({ api, grants, keystore, clock, adminUrl }: AdminEntities): AdminRoute[] {
  return [
    ...clientRoutes(api.clients, adminUrl),
    ...resourceRoutes(api.resources, adminUrl),
    ...providerRoutes(api.providers, adminUrl),
    ...workloadTrustRoutes(api.workloadTrusts, adminUrl),
    ...userRoutes(api.users, adminUrl),
    ...grantRoutes(grants),
    ...keyRoutes({ keystore, clock }),
  ];
}

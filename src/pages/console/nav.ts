import type { ConsoleNavId } from '../messages/index.js';

/**
 * The console's navigation, in order: one row per page that exists, its path below the
 * console's (`/admin`). A new page adds its row here and its label to `console.nav` in every
 * language of the catalogue (the type fails the build until it does).
 */
export const CONSOLE_NAV: readonly { readonly id: ConsoleNavId; readonly path: string }[] = [
  { id: 'overview', path: '' },
  // The entries: clients and resources (src/routes/console/clients.ts, resources.ts).
  { id: 'clients', path: '/clients' },
  { id: 'resources', path: '/resources' },
  { id: 'grants', path: '/grants' },
  { id: 'keys', path: '/keys' },
  // users, identity providers, workload trusts (src/routes/console/users.ts, providers.ts, workload-trusts.ts)
  { id: 'users', path: '/users' },
  { id: 'providers', path: '/providers' },
  { id: 'workload-trusts', path: '/workload-trusts' },
];

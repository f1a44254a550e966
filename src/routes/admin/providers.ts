import { z } from 'zod';
import type { EntriesApi } from '../../admin/entries-api.js';
import type { AdminRoute } from '../../admin/routes.js';
import { GithubProviderSchema, OidcProviderSchema, ProviderReplacementSchema, ProviderSchema } from '../../identity/providers.js';
import { ENTRY_META, entryRoutes } from './entries.js';

/**
 * `/admin/v1/providers`: upstream identity providers, the fields of IDENTITY_PROVIDERS_FILE.
 * `client_secret` is write-only: stored sealed under ENTRIES_ENCRYPTION_KEY, never answered
 * (`client_secret_set` says there is one); a PUT without it keeps the one sealed.
 */

const answered = { ...ENTRY_META, client_secret_set: z.boolean().describe('Whether a client secret is kept (never shown)') };
const ProviderView = z.discriminatedUnion('type', [
  OidcProviderSchema.omit({ client_secret: true }).extend(answered).strict(),
  GithubProviderSchema.omit({ client_secret: true }).extend(answered).strict(),
]);

export function providerRoutes(api: EntriesApi, adminUrl: string): AdminRoute[] {
  return entryRoutes({
    api,
    entity: 'provider',
    plural: 'providers',
    singular: 'identity provider',
    operation: { one: 'Provider', many: 'Providers' },
    key: 'id',
    keyDescription: "The provider's id",
    create: ProviderSchema,
    replace: ProviderReplacementSchema,
    view: ProviderView,
    adminUrl,
    file: 'IDENTITY_PROVIDERS_FILE',
  });
}

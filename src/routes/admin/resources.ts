import { z } from 'zod';
import type { EntriesApi } from '../../admin/entries-api.js';
import type { AdminRoute } from '../../admin/routes.js';
import { ResourceSchema } from '../../resources/registry.js';
import { ENTRY_META, entryRoutes } from './entries.js';

/**
 * `/admin/v1/resources`: protected resources (RFC 8707), the fields of RESOURCES_FILE, each
 * addressed by its resource identifier, percent-encoded in the path. The admin API's own
 * resource is built in: no entry may take it.
 */

const ResourceView = z.object({ ...ResourceSchema.shape, ...ENTRY_META }).strict();

export function resourceRoutes(api: EntriesApi, adminUrl: string): AdminRoute[] {
  return entryRoutes({
    api,
    entity: 'resource',
    plural: 'resources',
    singular: 'resource',
    operation: { one: 'Resource', many: 'Resources' },
    key: 'resource',
    keyDescription: 'The resource identifier (RFC 8707), percent-encoded: https%3A%2F%2Fapi.example.com%2F',
    create: ResourceSchema,
    replace: ResourceSchema,
    view: ResourceView,
    adminUrl,
    file: 'RESOURCES_FILE',
  });
}

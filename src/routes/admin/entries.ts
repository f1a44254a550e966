import { z } from 'zod';
import type { AdminEntity } from '../../admin/audit.js';
import { ENTRY_SOURCES, type EntriesApi } from '../../admin/entries-api.js';
import { pageQuery, pageSchema } from '../../admin/paging.js';
import { adminRoute, type AdminRoute } from '../../admin/routes.js';
import type { EntryDocument } from '../../store/entry-types.js';
import { withEtag } from './entity.js';

/**
 * The routes of an entity that has a file and the store (resources, identity providers,
 * workload trusts): `GET|POST /<entities>`, `GET|PUT|DELETE /<entities>/{<key>}`, the
 * fields of its file; entries of the file are listed and read-only (409 naming the file).
 */

/** What every entry answers beside its fields. */
export const ENTRY_META = {
  source: z.enum(ENTRY_SOURCES).describe('file: its file (read-only here); admin: this API'),
  created_at: z.number().int().optional().describe('Seconds since the epoch (none for a file entry)'),
  updated_at: z.number().int().optional(),
};

export interface EntryRoutesOptions {
  readonly api: EntriesApi;
  readonly entity: AdminEntity;
  /** `resources`: the path below /admin/v1 and the tag. */
  readonly plural: string;
  /** `resource`: in the summaries. */
  readonly singular: string;
  /** In the operations' names: `Resource` (`createResource`), `Resources` (`listResources`). */
  readonly operation: { readonly one: string; readonly many: string };
  /** The path parameter: the field holding the entry's key (`resource`, `id`). */
  readonly key: string;
  readonly keyDescription: string;
  readonly create: z.ZodType;
  readonly replace: z.ZodType;
  readonly view: z.ZodType;
  /** The admin API's URL (Location headers). */
  readonly adminUrl: string;
  /** What the file is called in summaries: `RESOURCES_FILE`. */
  readonly file: string;
}

export function entryRoutes(o: EntryRoutesOptions): AdminRoute[] {
  const params = z.object({ [o.key]: z.string().min(1).max(2048).describe(o.keyDescription) });
  const keyOf = (values: Record<string, string>) => values[o.key] as string;
  const { one, many } = o.operation;
  return [
    adminRoute({
      method: 'GET',
      path: `/${o.plural}`,
      operationId: `list${many}`,
      summary: `The ${o.plural}: ${o.file}'s (file order), then the API's (creation order)`,
      tag: o.plural,
      query: z.object({ source: z.enum(ENTRY_SOURCES).optional().describe('Only the entries from here'), ...pageQuery }),
      responses: { 200: { description: `A page of ${o.plural}`, schema: pageSchema(o.view) } },
      handle: async ({ query }) => ({ status: 200, body: await o.api.list(query) }),
    }),
    adminRoute({
      method: 'POST',
      path: `/${o.plural}`,
      operationId: `create${one}`,
      summary: `Create a ${o.singular}: served by every instance within a second`,
      tag: o.plural,
      body: o.create,
      problems: ['conflict-file-entry', 'conflict-exists'],
      responses: { 201: { description: 'Created', schema: o.view, headers: ['ETag', 'Location'] } },
      handle: async ({ body, audit }) => {
        const created = await o.api.create(body as EntryDocument);
        const id = String(created.view[o.key]);
        audit({ entity: o.entity, id, action: 'created', fields: created.fields });
        return { ...withEtag(201, created), location: `${o.adminUrl}/${o.plural}/${encodeURIComponent(id)}` };
      },
    }),
    adminRoute({
      method: 'GET',
      path: `/${o.plural}/{${o.key}}`,
      operationId: `get${one}`,
      summary: `One ${o.singular}`,
      tag: o.plural,
      params,
      responses: { 200: { description: `The ${o.singular}`, schema: o.view, headers: ['ETag'] } },
      handle: async ({ params }) => withEtag(200, await o.api.get(keyOf(params))),
    }),
    adminRoute({
      method: 'PUT',
      path: `/${o.plural}/{${o.key}}`,
      operationId: `replace${one}`,
      summary: `Replace a ${o.singular} as a whole`,
      tag: o.plural,
      params,
      body: o.replace,
      conditional: true,
      problems: ['conflict-file-entry', 'conflict-exists'],
      responses: { 200: { description: `The ${o.singular} as replaced`, schema: o.view, headers: ['ETag'] } },
      handle: async ({ params, body, ifMatch, audit }) => {
        const replaced = await o.api.replace(keyOf(params), body as EntryDocument, ifMatch);
        audit({ entity: o.entity, id: keyOf(params), action: 'replaced', fields: replaced.fields });
        return withEtag(200, replaced);
      },
    }),
    adminRoute({
      method: 'DELETE',
      path: `/${o.plural}/{${o.key}}`,
      operationId: `delete${one}`,
      summary: `Delete a ${o.singular}: gone from every instance within a second`,
      tag: o.plural,
      params,
      conditional: true,
      problems: ['conflict-file-entry'],
      responses: { 204: { description: 'Deleted' } },
      handle: async ({ params, ifMatch, audit }) => {
        await o.api.delete(keyOf(params), ifMatch);
        audit({ entity: o.entity, id: keyOf(params), action: 'deleted' });
        return { status: 204 };
      },
    }),
  ];
}

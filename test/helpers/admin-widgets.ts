import { z } from 'zod';
import { changedFields } from '../../src/admin/audit.js';
import { entryTag, requireIfMatch } from '../../src/admin/etags.js';
import { MERGE_PATCH_MEDIA_TYPE, mergePatch } from '../../src/admin/merge-patch.js';
import { pageOf, pageQuery, pageSchema } from '../../src/admin/paging.js';
import { AdminProblem, validationProblem } from '../../src/admin/problems.js';
import { adminRoute, type AdminRoute } from '../../src/admin/routes.js';
import { StoreUnavailableError } from '../../src/errors/index.js';

/**
 * An entity plugin as the admin API's entities are written (clients, resources, …), over a
 * map: what the frame tests drive. "file-widget" stands for an entry of a file (read-only).
 */

export const WidgetSchema = z
  .object({
    id: z.string().regex(/^[a-z0-9-]{1,32}$/, 'must be 1-32 lowercase letters, digits and -'),
    name: z.string().min(1).max(100),
    tags: z.array(z.string().max(20)).max(10).default([]),
    secret: z.string().min(8).optional(),
  })
  .strict();

const WidgetView = z
  .object({ id: z.string(), name: z.string(), tags: z.array(z.string()), secret_set: z.boolean(), source: z.enum(['file', 'admin']) })
  .strict();

type Widget = z.output<typeof WidgetSchema> & { seq: number; rev: number; source: 'file' | 'admin' };

export class Widgets {
  readonly entries = new Map<string, Widget>([
    ['file-widget', { id: 'file-widget', name: 'From the file', tags: [], seq: 0, rev: 1, source: 'file' }],
  ]);
  private sequence = 0;
  /** Set to make every route fail as a store outage does. */
  storeDown = false;

  view(widget: Widget) {
    return { id: widget.id, name: widget.name, tags: widget.tags, secret_set: widget.secret !== undefined, source: widget.source };
  }

  found(id: string): Widget {
    if (this.storeDown) throw new StoreUnavailableError('the test store is down');
    const widget = this.entries.get(id);
    if (!widget) throw new AdminProblem('not-found', `no widget "${id}"`);
    return widget;
  }

  writable(id: string): Widget {
    const widget = this.found(id);
    if (widget.source === 'file') throw new AdminProblem('conflict-file-entry', `widget "${id}" comes from widgets.json: change it there`);
    return widget;
  }

  create(input: z.output<typeof WidgetSchema>): Widget {
    if (this.entries.has(input.id)) throw new AdminProblem('conflict-exists', `widget "${input.id}" exists`);
    const widget: Widget = { ...input, seq: ++this.sequence, rev: 1, source: 'admin' };
    this.entries.set(widget.id, widget);
    return widget;
  }
}

const idParam = z.object({ id: z.string().describe('The widget id') });

export function widgetRoutes(widgets: Widgets): AdminRoute[] {
  return [
    adminRoute({
      method: 'GET',
      path: '/widgets',
      operationId: 'listWidgets',
      summary: 'Widgets, file entries first',
      tag: 'widgets',
      query: z.object({ ...pageQuery }),
      responses: { 200: { description: 'A page', schema: pageSchema(WidgetView) } },
      handle: async ({ query }) => ({
        status: 200,
        body: (() => {
          const page = pageOf(
            [...widgets.entries.values()].sort((a, b) => a.seq - b.seq),
            (w) => [w.seq],
            query,
          );
          return { ...page, items: page.items.map((w) => widgets.view(w)) };
        })(),
      }),
    }),
    adminRoute({
      method: 'POST',
      path: '/widgets',
      operationId: 'createWidget',
      summary: 'Create a widget',
      tag: 'widgets',
      body: WidgetSchema,
      problems: ['conflict-exists'],
      responses: { 201: { description: 'Created', schema: WidgetView, headers: ['ETag', 'Location'] } },
      handle: async ({ body, audit }) => {
        const widget = widgets.create(body);
        audit({ entity: 'resource', id: widget.id, action: 'created', fields: Object.keys(body) });
        return {
          status: 201,
          body: widgets.view(widget),
          etag: entryTag('widget', widget.rev),
          location: `/admin/v1/widgets/${widget.id}`,
        };
      },
    }),
    adminRoute({
      method: 'GET',
      path: '/widgets/{id}',
      operationId: 'getWidget',
      summary: 'One widget',
      tag: 'widgets',
      params: idParam,
      responses: { 200: { description: 'The widget', schema: WidgetView, headers: ['ETag'] } },
      handle: async ({ params }) => {
        const widget = widgets.found(params.id);
        return { status: 200, body: widgets.view(widget), etag: entryTag('widget', widget.rev) };
      },
    }),
    adminRoute({
      method: 'PATCH',
      path: '/widgets/{id}',
      operationId: 'patchWidget',
      summary: 'Change a widget (JSON Merge Patch)',
      tag: 'widgets',
      params: idParam,
      body: z.record(z.string(), z.unknown()),
      bodyMediaTypes: [MERGE_PATCH_MEDIA_TYPE],
      conditional: true,
      problems: ['conflict-file-entry'],
      responses: { 200: { description: 'The widget as changed', schema: WidgetView, headers: ['ETag'] } },
      handle: async ({ params, body, ifMatch, audit }) => {
        const widget = widgets.writable(params.id);
        requireIfMatch(ifMatch, entryTag('widget', widget.rev));
        const { seq, rev, source, ...document } = widget;
        const patched = WidgetSchema.safeParse(mergePatch(document, body));
        if (!patched.success) throw validationProblem(patched.error.issues, 'the patched widget is not valid');
        const next: Widget = { ...patched.data, seq, rev: rev + 1, source };
        widgets.entries.set(next.id, next);
        audit({ entity: 'resource', id: next.id, action: 'updated', fields: changedFields(document, patched.data) });
        return { status: 200, body: widgets.view(next), etag: entryTag('widget', next.rev) };
      },
    }),
    adminRoute({
      method: 'DELETE',
      path: '/widgets/{id}',
      operationId: 'deleteWidget',
      summary: 'Delete a widget',
      tag: 'widgets',
      params: idParam,
      conditional: true,
      problems: ['conflict-file-entry'],
      responses: { 204: { description: 'Deleted' } },
      handle: async ({ params, ifMatch, audit }) => {
        const widget = widgets.writable(params.id);
        requireIfMatch(ifMatch, entryTag('widget', widget.rev));
        widgets.entries.delete(params.id);
        audit({ entity: 'resource', id: params.id, action: 'deleted' });
        return { status: 204 };
      },
    }),
    adminRoute({
      method: 'GET',
      path: '/broken',
      operationId: 'broken',
      summary: 'Fails unexpectedly',
      tag: 'widgets',
      responses: { 200: { description: 'Never' } },
      handle: async () => {
        throw new TypeError('a bug with a secret-ish message');
      },
    }),
  ];
}

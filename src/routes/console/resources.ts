import { z } from 'zod';
import { recordAdminChange } from '../../admin/audit.js';
import { PAGE_LIMIT } from '../../admin/paging.js';
import { NO_PROBLEMS } from '../../pages/console/fields.js';
import {
  deleteResourceBody,
  NEW_RESOURCE,
  readOnlyResourceBody,
  RESOURCE_FORM_FIELDS,
  resourceFormBody,
  resourceFormValues,
  resourceHref,
  resourcePaths,
  resourcesBody,
} from '../../pages/console/resources.js';
import type { EntryDocument } from '../../store/entry-types.js';
import { consoleAction, consolePage, type ConsoleRoute, formText } from './declare.js';
import { EntryIdField, etagDeletion } from './entry-deletion.js';
import { changeable, changeOrForm, type ConsoleEntriesDependencies, editOrForm, EtagField, formOrReadOnly } from './entry-forms.js';

/**
 * The console's protected resources, over the admin API's (src/admin/resources.ts through
 * its EntriesApi): the list, a new resource, one added here edited as a whole (what the form
 * does not show, its scope descriptions, is kept), a deletion after a confirmation; the
 * resources file's are read-only. Every change is an `admin.changed` event by the person.
 */

const ResourceQuery = z.object({ resource: EntryIdField });
const ResourceForm = z.object({ resource: z.string().max(2048), name: formText, scope: formText, access_token_ttl: formText });
const EditForm = ResourceForm.extend({ etag: EtagField });
const REFUSED = { fields: RESOURCE_FORM_FIELDS, taken: 'resource' };

/** The document a form writes, over what the resource holds beyond the form (`kept`). */
function documentOf(form: z.output<typeof ResourceForm>, kept: Readonly<Record<string, unknown>> = {}): EntryDocument {
  const { name: _name, access_token_ttl: _ttl, source: _source, created_at: _created, updated_at: _updated, ...rest } = kept;
  const ttl = form.access_token_ttl;
  return {
    ...rest,
    resource: form.resource.trim(),
    ...(form.name === undefined ? {} : { name: form.name }),
    scope: form.scope ?? '',
    // Digits are a number; anything else goes to the schema as typed, to be refused next to the field.
    ...(ttl === undefined ? {} : { access_token_ttl: /^\d{1,9}$/.test(ttl) ? Number(ttl) : ttl }),
  };
}

export function resourcePages(deps: ConsoleEntriesDependencies): ConsoleRoute[] {
  const api = deps.api.resources;
  const file = deps.files.resources;
  const bodies = { pathsOf: resourcePaths, file, valuesOf: resourceFormValues, form: resourceFormBody, readOnly: readOnlyResourceBody };
  const valuesOf = (form: z.output<typeof ResourceForm>) => ({
    resource: form.resource,
    name: form.name ?? '',
    scope: form.scope ?? '',
    access_token_ttl: form.access_token_ttl ?? '',
  });
  const editable = (resource: string) => changeable(api.get(resource), `resource "${resource}"`, file);
  return [
    consolePage({
      path: '/resources',
      nav: 'resources',
      query: z.object({ cursor: z.string().max(1024).optional() }),
      render: async ({ query, view, t, base }) => {
        const paths = resourcePaths(base);
        const page = await api.list({ limit: PAGE_LIMIT.default, cursor: query.cursor });
        const next = (cursor: string) => `${paths.list}?${new URLSearchParams({ cursor })}`;
        return { title: t.console.nav.resources, body: resourcesBody(view, page, paths, file, next) };
      },
    }),
    consolePage({
      path: '/resources/new',
      nav: 'resources',
      render: async ({ view, t, base, csrfToken }) => ({
        title: t.console.resourcePages.newResource,
        body: resourceFormBody(view, { values: NEW_RESOURCE, problems: NO_PROBLEMS, paths: resourcePaths(base), csrfToken }),
      }),
    }),
    consoleAction({
      path: '/resources/new',
      returnTo: '/resources/new',
      form: ResourceForm,
      handle: async ({ form, view, t, base, csrfToken, actor }) =>
        changeOrForm(
          async () => {
            const created = await api.create(documentOf(form));
            const id = String(created.view.resource);
            recordAdminChange(deps.events, { actor, entity: 'resource', id, action: 'created', fields: created.fields });
            return { redirect: resourceHref('/resources/edit', id), notice: 'resource-created' };
          },
          REFUSED,
          (problems) => ({
            title: t.console.resourcePages.newResource,
            body: resourceFormBody(view, { values: valuesOf(form), problems, paths: resourcePaths(base), csrfToken }),
          }),
        ),
    }),
    consolePage({
      path: '/resources/edit',
      nav: 'resources',
      query: ResourceQuery,
      render: async (context) => {
        const found = await api.get(context.query.resource);
        return { title: context.t.console.resourcePages.editTitle(context.query.resource), body: formOrReadOnly(context, found, bodies) };
      },
    }),
    consoleAction({
      path: '/resources/edit',
      returnTo: '/resources',
      form: EditForm,
      handle: async ({ form, view, t, base, csrfToken, actor }) =>
        editOrForm(
          editable(form.resource),
          form.etag,
          async (entry, ifMatch) => {
            const replaced = await api.replace(form.resource, documentOf(form, entry), ifMatch);
            recordAdminChange(deps.events, { actor, entity: 'resource', id: form.resource, action: 'replaced', fields: replaced.fields });
            return { redirect: resourceHref('/resources/edit', form.resource), notice: 'resource-saved' };
          },
          REFUSED,
          (problems, editing) => ({
            title: t.console.resourcePages.editTitle(form.resource),
            body: resourceFormBody(view, {
              values: valuesOf(form),
              problems,
              paths: resourcePaths(base),
              csrfToken,
              editing: { ...editing, file },
            }),
          }),
        ),
    }),
    ...etagDeletion({
      path: '/resources',
      nav: 'resources',
      entity: 'resource',
      events: deps.events,
      notice: 'resource-deleted',
      field: 'resource',
      changeable: editable,
      confirmation: ({ view, t, base, csrfToken }, { view: entry, etag }) => ({
        title: t.console.resourcePages.deleteTitle,
        body: deleteResourceBody(view, entry, etag, resourcePaths(base), csrfToken, file),
      }),
      delete: (resource, ifMatch) => api.delete(resource, ifMatch),
    }),
  ];
}

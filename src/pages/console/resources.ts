import type { EntryView } from '../../admin/entries-api.js';
import type { Page as ListPage } from '../../admin/paging.js';
import { type Html, html } from '../html.js';
import type { PageView } from '../view.js';
import { sourceOf } from './clients.js';
import { entryFormBody, type FormProblems, textField } from './fields.js';
import { momentOf } from './format.js';
import { csrfField, scrollingTable } from './frame.js';

/**
 * The console's protected resources (RFC 8707): the list, the form of a new one and of one
 * added here (an edit carries the ETag it was read at), one of the resources file read-only
 * (with the file's name), and the confirmation of a deletion.
 */

export interface ResourcePaths {
  readonly list: string;
  readonly new: string;
  readonly edit: string;
  readonly delete: string;
}

export function resourcePaths(base: string): ResourcePaths {
  const list = `${base}/resources`;
  return { list, new: `${list}/new`, edit: `${list}/edit`, delete: `${list}/delete` };
}

export const resourceHref = (path: string, resource: string): string => `${path}?${new URLSearchParams({ resource })}`;

/** The fields of the form, as typed. */
export interface ResourceFormValues {
  readonly resource: string;
  readonly name: string;
  readonly scope: string;
  readonly access_token_ttl: string;
}

export const RESOURCE_FORM_FIELDS = ['resource', 'name', 'scope', 'access_token_ttl'];

export const NEW_RESOURCE: ResourceFormValues = { resource: '', name: '', scope: '', access_token_ttl: '' };

const text = (value: unknown) => (typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '');

export function resourceFormValues(entry: EntryView): ResourceFormValues {
  return {
    resource: text(entry.resource),
    name: text(entry.name),
    scope: text(entry.scope),
    access_token_ttl: text(entry.access_token_ttl),
  };
}

function row(view: PageView, entry: EntryView, paths: ResourcePaths, file: string): Html {
  const t = view.t.console.entries;
  const resource = text(entry.resource);
  const named = html`<span class="visually-hidden"> ${resource}</span>`;
  const actions =
    entry.source === 'file'
      ? html`${t.readOnly}`
      : html`<a href="${resourceHref(paths.edit, resource)}">${t.edit}${named}</a> · <a href="${resourceHref(paths.delete, resource)}">${t.delete}${named}</a>`;
  return html`<tr><td><a href="${resourceHref(paths.edit, resource)}"><code>${resource}</code></a></td><td>${text(entry.name)}</td>
<td><code>${text(entry.scope)}</code></td><td>${sourceOf(view, entry.source, file)}</td><td>${actions}</td></tr>`;
}

export function resourcesBody(
  view: PageView,
  page: ListPage<EntryView>,
  paths: ResourcePaths,
  file: string,
  cursorOf: (next: string) => string,
): Html {
  const t = view.t.console;
  const p = t.resourcePages;
  const head = html`<tr><th scope="col">${p.resource}</th><th scope="col">${p.name}</th><th scope="col">${p.scope}</th><th scope="col">${t.entries.source}</th><th scope="col">${t.actions}</th></tr>`;
  const table =
    page.items.length === 0
      ? html`<p class="muted">${p.noResources}</p>`
      : scrollingTable(
          { id: 'resources-caption', text: html`${p.caption}`, hidden: true },
          head,
          page.items.map((entry) => row(view, entry, paths, file)),
        );
  const next = page.next === undefined ? html`` : html`<p class="pager"><a href="${cursorOf(page.next)}">${t.nextPage}</a></p>`;
  return html`<p class="muted">${p.intro}</p>
<p><a href="${paths.new}">${p.newResource}</a></p>
${table}
${next}`;
}

/** The terms of a resource every page of it shows. */
export function resourceTerms(view: PageView, entry: EntryView, file: string): Html {
  const t = view.t.console;
  const p = t.resourcePages;
  const term = (name: string, value: unknown, code = false) =>
    text(value) === '' ? html`` : html`<dt>${name}</dt><dd>${code ? html`<code>${text(value)}</code>` : html`${text(value)}`}</dd>`;
  const when = (name: string, value: unknown) =>
    typeof value === 'number' ? html`<dt>${name}</dt><dd>${momentOf(value, view.t.lang)}</dd>` : html``;
  return html`<dl class="terms">${term(p.resource, entry.resource, true)}${term(p.name, entry.name)}${term(p.scope, entry.scope, true)}${term(p.tokenLifetime, entry.access_token_ttl)}
<dt>${t.entries.source}</dt><dd>${sourceOf(view, entry.source, file)}</dd>${when(t.entries.created, entry.created_at)}${when(t.entries.updated, entry.updated_at)}</dl>`;
}

export function readOnlyResourceBody(view: PageView, entry: EntryView, paths: ResourcePaths, file: string): Html {
  const t = view.t.console;
  return html`<p>${t.entries.fromFile(html`<code>${file}</code>`)}</p>
${resourceTerms(view, entry, file)}
<p><a href="${paths.list}">${t.back}</a></p>`;
}

export interface ResourceForm {
  readonly values: ResourceFormValues;
  readonly problems: FormProblems;
  readonly paths: ResourcePaths;
  readonly csrfToken: string;
  readonly editing?: { readonly entry: EntryView; readonly etag: string; readonly file: string };
}

export function resourceFormBody(view: PageView, form: ResourceForm): Html {
  const t = view.t.console;
  const p = t.resourcePages;
  const { values, problems, editing, paths } = form;
  const resource = editing ? text(editing.entry.resource) : '';
  const fields = html`${textField(view, { name: 'resource', label: p.resource, value: values.resource, hint: p.resourceHint, readOnly: editing !== undefined }, problems)}${textField(view, { name: 'name', label: p.name, value: values.name }, problems)}${textField(view, { name: 'scope', label: p.scope, value: values.scope, hint: p.scopeHint }, problems)}${textField(view, { name: 'access_token_ttl', label: p.tokenLifetime, value: values.access_token_ttl, hint: p.tokenLifetimeHint, numeric: true }, problems)}`;
  const editPage = editing && { page: resourceHref(paths.edit, resource), etag: editing.etag };
  const body = entryFormBody(view, { problems, csrfToken: form.csrfToken, paths, create: p.create, editing: editPage }, fields);
  if (!editing) return body;
  return html`${resourceTerms(view, editing.entry, editing.file)}
<p><a href="${resourceHref(paths.delete, resource)}">${p.deleteButton}</a></p>
<h2>${t.entries.edit}</h2>
${body}`;
}

export function deleteResourceBody(
  view: PageView,
  entry: EntryView,
  etag: string,
  paths: ResourcePaths,
  csrfToken: string,
  file: string,
): Html {
  const t = view.t.console;
  const resource = text(entry.resource);
  return html`<p>${t.resourcePages.deleteExplanation(html`<code>${resource}</code>`)}</p>
<p>${t.entries.deleteForever}</p>
${resourceTerms(view, entry, file)}
<form method="post" action="${paths.delete}">
${csrfField(csrfToken)}
<input type="hidden" name="resource" value="${resource}">
<input type="hidden" name="etag" value="${etag}">
<div class="actions"><a href="${resourceHref(paths.edit, resource)}">${t.cancel}</a><button class="primary" type="submit">${t.resourcePages.deleteButton}</button></div>
</form>`;
}

import type { ClientSource, ClientView } from '../../admin/client-metadata.js';
import type { Page as ListPage } from '../../admin/paging.js';
import { type Html, html } from '../html.js';
import type { PageView } from '../view.js';
import { momentOf } from './format.js';
import { scrollingTable } from './frame.js';

/**
 * The console's clients: the list (paged like the admin API, filtered by source and by a
 * search in ids and names), and a client that cannot be edited here shown read-only: one of
 * the clients file (with the file's name), or one that registered itself (which can be deleted).
 */

export interface ClientPaths {
  readonly list: string;
  readonly new: string;
  /** A client's page: its form, or the client read-only (`?client_id=`). */
  readonly edit: string;
  /** A new secret: the confirmation (GET) and the change (POST). */
  readonly secret: string;
  readonly delete: string;
}

export function clientPaths(base: string): ClientPaths {
  const list = `${base}/clients`;
  return { list, new: `${list}/new`, edit: `${list}/edit`, secret: `${list}/secret`, delete: `${list}/delete` };
}

/** A page of one client: `path?client_id=…`. */
export const clientHref = (path: string, clientId: string): string => `${path}?${new URLSearchParams({ client_id: clientId })}`;

export interface ClientFilter {
  readonly source?: ClientSource | undefined;
  readonly q?: string | undefined;
}

function listQuery(filter: ClientFilter, cursor?: string): string {
  const query = new URLSearchParams();
  if (filter.source !== undefined) query.set('source', filter.source);
  if (filter.q !== undefined) query.set('q', filter.q);
  if (cursor !== undefined) query.set('cursor', cursor);
  const text = query.toString();
  return text === '' ? '' : `?${text}`;
}

const SOURCES: readonly ClientSource[] = ['file', 'admin', 'registration'];

function filterForm(view: PageView, filter: ClientFilter, paths: ClientPaths): Html {
  const t = view.t.console;
  const options = SOURCES.map(
    (source) => html`<option value="${source}"${filter.source === source ? html` selected` : html``}>${t.entries.sources[source]}</option>`,
  );
  return html`<form class="filter" method="get" action="${paths.list}">
<div><label for="q">${t.clientPages.search}</label><input id="q" name="q" type="text" autocomplete="off" spellcheck="false" value="${filter.q ?? ''}"></div>
<div><label for="source">${t.entries.source}</label><select id="source" name="source"><option value="">${t.entries.anySource}</option>${options}</select></div>
<div class="actions"><button class="primary small" type="submit">${t.entries.show}</button></div>
</form>`;
}

/** Where a client comes from; a file's with the file's name. */
export function sourceOf(view: PageView, source: ClientSource | 'file' | 'admin', file: string): Html {
  const label = view.t.console.entries.sources[source];
  return source === 'file' ? html`${label}: <code>${file}</code>` : html`${label}`;
}

function actions(view: PageView, client: ClientView, paths: ClientPaths): Html {
  const t = view.t.console.entries;
  const named = html`<span class="visually-hidden"> ${client.client_id}</span>`;
  const remove = html`<a href="${clientHref(paths.delete, client.client_id)}">${t.delete}${named}</a>`;
  if (client.source === 'file') return html`${t.readOnly}`;
  if (client.source === 'registration') return remove;
  return html`<a href="${clientHref(paths.edit, client.client_id)}">${t.edit}${named}</a> · ${remove}`;
}

function row(view: PageView, client: ClientView, paths: ClientPaths, file: string): Html {
  return html`<tr><td><a href="${clientHref(paths.edit, client.client_id)}"><code>${client.client_id}</code></a></td><td>${client.client_name ?? ''}</td>
<td>${sourceOf(view, client.source, file)}</td><td><code>${client.grant_types.join(' ')}</code></td><td><code>${client.token_endpoint_auth_method}</code></td>
<td>${actions(view, client, paths)}</td></tr>`;
}

export function clientsBody(view: PageView, filter: ClientFilter, page: ListPage<ClientView>, paths: ClientPaths, file: string): Html {
  const t = view.t.console;
  const p = t.clientPages;
  const head = html`<tr><th scope="col">${p.clientId}</th><th scope="col">${p.name}</th><th scope="col">${t.entries.source}</th><th scope="col">${p.grantTypes}</th><th scope="col">${p.authMethod}</th><th scope="col">${t.actions}</th></tr>`;
  const table =
    page.items.length === 0
      ? html`<p class="muted">${p.noClients}</p>`
      : scrollingTable(
          { id: 'clients-caption', text: html`${p.caption}`, hidden: true },
          head,
          page.items.map((client) => row(view, client, paths, file)),
        );
  const next =
    page.next === undefined ? html`` : html`<p class="pager"><a href="${paths.list}${listQuery(filter, page.next)}">${t.nextPage}</a></p>`;
  return html`<p class="muted">${p.intro}</p>
<p><a href="${paths.new}">${p.newClient}</a></p>
${filterForm(view, filter, paths)}
${table}
${next}`;
}

/** The terms of a client every page of it shows. */
export function clientTerms(view: PageView, client: ClientView, file: string): Html {
  const t = view.t.console;
  const p = t.clientPages;
  const when = (term: string, seconds: number | undefined) =>
    seconds === undefined ? html`` : html`<dt>${term}</dt><dd>${momentOf(seconds, view.t.lang)}</dd>`;
  const list = (values: readonly string[]) =>
    html`${values.map((value, i) => html`${i === 0 ? html`` : html`<br>`}<code>${value}</code>`)}`;
  const registered = client.source === 'registration';
  return html`<dl class="terms"><dt>${p.clientId}</dt><dd><code>${client.client_id}</code></dd>${client.client_name === undefined ? html`` : html`<dt>${p.name}</dt><dd>${client.client_name}</dd>`}
<dt>${t.entries.source}</dt><dd>${sourceOf(view, client.source, file)}</dd>
<dt>${p.grantTypes}</dt><dd>${list(client.grant_types)}</dd>${client.redirect_uris.length === 0 ? html`` : html`<dt>${p.redirectUris}</dt><dd>${list(client.redirect_uris)}</dd>`}
${client.scope === '' ? html`` : html`<dt>${p.scope}</dt><dd><code>${client.scope}</code></dd>`}<dt>${p.authMethod}</dt><dd><code>${client.token_endpoint_auth_method}</code></dd>
${when(registered ? p.registered : t.entries.created, client.created_at)}${when(t.entries.updated, client.updated_at)}${when(p.expiresAt, client.expires_at)}</dl>`;
}

/** A client this console cannot edit: the file's (where to change it), or a registration (delete it). */
export function readOnlyClientBody(view: PageView, client: ClientView, paths: ClientPaths, file: string): Html {
  const t = view.t.console;
  const note =
    client.source === 'file'
      ? html`<p>${t.entries.fromFile(html`<code>${file}</code>`)}</p>`
      : html`<p>${t.clientPages.deleteRegistration}</p><p><a href="${clientHref(paths.delete, client.client_id)}">${t.entries.delete}</a></p>`;
  return html`${note}
${clientTerms(view, client, file)}
<p><a href="${paths.list}">${t.back}</a></p>`;
}

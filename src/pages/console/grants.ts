import type { GrantFilter, GrantView } from '../../admin/grants.js';
import type { Page as ListPage } from '../../admin/paging.js';
import { type Html, html } from '../html.js';
import type { PageView } from '../view.js';
import { csrfField, scrollingTable } from './frame.js';
import { momentOf } from './format.js';

/** The console's grants: a user's or a client's live grants, a page at a time, each with a way to revoke it (after a confirmation). */

export interface GrantsPaths {
  /** The list (GET, with `sub`, `client_id`, `cursor`). */
  readonly list: string;
  /** The confirmation (GET) and the revocation (POST). */
  readonly revoke: string;
}

/** The query of a list: its filter, and a cursor. */
export function grantsQuery(filter: GrantFilter, extra: Record<string, string> = {}): string {
  const query = new URLSearchParams();
  if (filter.sub !== undefined) query.set('sub', filter.sub);
  if (filter.clientId !== undefined) query.set('client_id', filter.clientId);
  for (const [name, value] of Object.entries(extra)) query.set(name, value);
  const text = query.toString();
  return text === '' ? '' : `?${text}`;
}

function filterForm(view: PageView, filter: GrantFilter, paths: GrantsPaths): Html {
  const t = view.t.console;
  return html`<form class="filter" method="get" action="${paths.list}">
<div><label for="sub">${t.user}</label><input id="sub" name="sub" type="text" autocomplete="off" spellcheck="false" value="${filter.sub ?? ''}"></div>
<div><label for="client_id">${t.client}</label><input id="client_id" name="client_id" type="text" autocomplete="off" spellcheck="false" value="${filter.clientId ?? ''}"></div>
<div class="actions"><button class="primary small" type="submit">${t.showGrants}</button></div>
</form>`;
}

function ownerOf(filter: GrantFilter): Html {
  const parts = [filter.sub, filter.clientId].filter((part): part is string => part !== undefined);
  return html`<code>${parts.join(' @ ')}</code>`;
}

function row(view: PageView, grant: GrantView, filter: GrantFilter, paths: GrantsPaths): Html {
  const t = view.t.console;
  const revoke = `${paths.revoke}${grantsQuery(filter, { grant_id: grant.grant_id })}`;
  return html`<tr><td><code>${grant.grant_id}</code></td><td><code>${grant.sub}</code></td><td><code>${grant.client_id}</code></td>
<td>${grant.scope === undefined ? html`` : html`<code>${grant.scope.join(' ')}</code>`}</td>
<td>${grant.granted_at === undefined ? html`` : momentOf(grant.granted_at, view.t.lang)}</td><td>${momentOf(grant.expires_at, view.t.lang)}</td>
<td><a href="${revoke}">${t.revoke}<span class="visually-hidden"> ${grant.grant_id}</span></a></td></tr>`;
}

function table(view: PageView, filter: GrantFilter, page: ListPage<GrantView>, paths: GrantsPaths): Html {
  const t = view.t.console;
  if (page.items.length === 0) return html`<p class="muted">${t.noGrants}</p>`;
  const next =
    page.next === undefined
      ? html``
      : html`<p class="pager"><a href="${paths.list}${grantsQuery(filter, { cursor: page.next })}">${t.nextPage}</a></p>`;
  const head = html`<tr><th scope="col">${t.grant}</th><th scope="col">${t.user}</th><th scope="col">${t.client}</th><th scope="col">${t.scope}</th><th scope="col">${t.granted}</th><th scope="col">${t.expires}</th><th scope="col">${t.actions}</th></tr>`;
  const rows = page.items.map((grant) => row(view, grant, filter, paths));
  return html`${scrollingTable({ id: 'grants-caption', text: t.grantsOf(ownerOf(filter)) }, head, rows)}
${next}`;
}

export function grantsBody(view: PageView, filter: GrantFilter, page: ListPage<GrantView> | undefined, paths: GrantsPaths): Html {
  const t = view.t.console;
  return html`<p class="muted">${t.grantsIntro}</p>
${filterForm(view, filter, paths)}
${page === undefined ? html`<p class="muted">${t.grantsNeedFilter}</p>` : table(view, filter, page, paths)}`;
}

/** The confirmation of a revocation: what stops, and the form that does it (back to the list, filtered as it was). */
export function revokeGrantBody(view: PageView, grant: GrantView, filter: GrantFilter, paths: GrantsPaths, csrfToken: string): Html {
  const t = view.t.console;
  const back = `${paths.list}${grantsQuery(filter)}`;
  return html`<p>${t.revokeExplanation(html`<code>${grant.sub}</code>`, html`<code>${grant.client_id}</code>`)}</p>
<dl><dt>${t.grant}</dt><dd><code>${grant.grant_id}</code></dd>${grant.scope === undefined ? html`` : html`<dt>${t.scope}</dt><dd><code>${grant.scope.join(' ')}</code></dd>`}<dt>${t.expires}</dt><dd>${momentOf(grant.expires_at, view.t.lang)}</dd></dl>
<form method="post" action="${paths.revoke}">
${csrfField(csrfToken)}
<input type="hidden" name="grant_id" value="${grant.grant_id}">
${filter.sub === undefined ? html`` : html`<input type="hidden" name="sub" value="${filter.sub}">`}
${filter.clientId === undefined ? html`` : html`<input type="hidden" name="client_id" value="${filter.clientId}">`}
<div class="actions"><a href="${back}">${t.cancel}</a><button class="primary" type="submit">${t.revokeButton}</button></div>
</form>`;
}

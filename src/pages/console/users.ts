import type { Page as ListPage } from '../../admin/paging.js';
import type { UserSource, UserView } from '../../admin/users-api.js';
import { type Html, html } from '../html.js';
import type { PageView } from '../view.js';
import { checkbox, type FormProblems, NO_PROBLEMS, problemSummary, textField } from './identity-fields.js';
import { csrfField, scrollingTable } from './frame.js';
import { momentOf } from './format.js';

/** The console's users: the list (searched, by source, a page at a time) and the form of a new local user. */

export interface UsersPaths {
  readonly list: string;
  readonly create: string;
  /** One user's page (`?sub=`). */
  readonly user: string;
}

export interface UsersFilter {
  readonly q?: string | undefined;
  readonly source?: UserSource | undefined;
}

/** What the new user's form sent (never its password). */
export interface NewUserValues {
  readonly username?: string | undefined;
  readonly sub?: string | undefined;
  readonly name?: string | undefined;
  readonly email?: string | undefined;
  readonly admin?: boolean;
}

export function usersQuery(filter: UsersFilter, extra: Record<string, string> = {}): string {
  const query = new URLSearchParams();
  if (filter.q !== undefined) query.set('q', filter.q);
  if (filter.source !== undefined) query.set('source', filter.source);
  for (const [name, value] of Object.entries(extra)) query.set(name, value);
  const text = query.toString();
  return text === '' ? '' : `?${text}`;
}

export const userLink = (paths: UsersPaths, sub: string) => `${paths.user}?${new URLSearchParams({ sub })}`;

/** How the console names a user: the username, else what their provider says (email, name), else the sub. */
export function userName(user: UserView): string {
  const { claims } = user;
  const said = [user.username, claims.email, claims.preferred_username, claims.name].find((v) => typeof v === 'string' && v !== '');
  return (said as string | undefined) ?? user.sub;
}

export function sourceOf(view: PageView, user: { readonly source: string }, file: string): Html {
  const t = view.t.console.identity;
  if (user.source === 'file') return html`${t.sources.file} <code>${file}</code>`;
  return html`${user.source === 'admin' ? t.sources.admin : t.sources.federated}`;
}

function filterForm(view: PageView, filter: UsersFilter, paths: UsersPaths): Html {
  const t = view.t.console.identity;
  const sources = [
    { value: '', label: t.all },
    { value: 'file', label: t.sources.file },
    { value: 'admin', label: t.sources.admin },
    { value: 'federated', label: t.sources.federated },
  ];
  return html`<form class="filter" method="get" action="${paths.list}">
<div><label for="q">${t.search}</label><input id="q" name="q" type="text" autocomplete="off" spellcheck="false" value="${filter.q ?? ''}"></div>
<div><label for="source">${t.source}</label><select id="source" name="source">${sources.map(
    (s) => html`<option value="${s.value}"${s.value === (filter.source ?? '') ? html` selected` : html``}>${s.label}</option>`,
  )}</select></div>
<div class="actions"><button class="primary small" type="submit">${t.filter}</button></div>
</form>`;
}

function row(view: PageView, user: UserView, paths: UsersPaths, file: string): Html {
  const t = view.t.console.identity;
  const roles = user.source === 'federated' ? html`<span class="muted">${t.federatedRoles}</span>` : html`${(user.roles ?? []).join(', ')}`;
  const lastSignIn = user.last_sign_in_at === undefined ? html`` : html`${momentOf(user.last_sign_in_at, view.t.lang)}`;
  return html`<tr><td><a href="${userLink(paths, user.sub)}">${userName(user)}</a></td><td><code>${user.sub}</code></td>
<td>${sourceOf(view, user, file)}</td><td>${roles}</td><td>${user.disabled ? html`<strong>${t.disabled}</strong>` : t.active}</td>
<td>${user.provider === undefined ? html`` : html`<code>${user.provider}</code>`}</td><td>${lastSignIn}</td></tr>`;
}

export function usersBody(view: PageView, filter: UsersFilter, page: ListPage<UserView>, paths: UsersPaths, file: string): Html {
  const t = view.t.console.identity;
  const head = html`<tr><th scope="col">${t.user}</th><th scope="col">${t.sub}</th><th scope="col">${t.source}</th><th scope="col">${t.roles}</th><th scope="col">${t.status}</th><th scope="col">${t.provider}</th><th scope="col">${t.lastSignIn}</th></tr>`;
  const next =
    page.next === undefined
      ? html``
      : html`<p class="pager"><a href="${paths.list}${usersQuery(filter, { cursor: page.next })}">${view.t.console.nextPage}</a></p>`;
  const table =
    page.items.length === 0
      ? html`<p class="muted">${t.noUsers}</p>`
      : scrollingTable(
          { id: 'users-caption', text: html`${view.t.console.identity.user}`, hidden: true },
          head,
          page.items.map((user) => row(view, user, paths, file)),
        );
  return html`<p class="muted">${t.usersIntro}</p>
<p><a class="button" href="${paths.create}">${t.newUser}</a></p>
${filterForm(view, filter, paths)}
${table}
${next}`;
}

export function newUserBody(
  view: PageView,
  values: NewUserValues,
  paths: UsersPaths,
  csrfToken: string,
  minLength: number,
  problems: FormProblems = NO_PROBLEMS,
): Html {
  const t = view.t.console.identity;
  return html`${problemSummary(view, problems)}<form method="post" action="${paths.create}">
${csrfField(csrfToken)}
${textField(view, { name: 'username', label: t.username, value: values.username, required: true, code: true }, problems)}
${textField(view, { name: 'sub', label: `${t.sub} ${t.optional}`, hint: t.subHint, value: values.sub, code: true }, problems)}
${textField(view, { name: 'name', label: `${t.name} ${t.optional}`, value: values.name }, problems)}
${textField(view, { name: 'email', label: `${t.email} ${t.optional}`, type: 'email', value: values.email }, problems)}
${textField(view, { name: 'password', label: t.password, hint: t.passwordHint(minLength), type: 'password', required: true, autocomplete: 'new-password' }, problems)}
${checkbox(view, { name: 'admin', label: t.adminRole, hint: t.adminRoleHint, checked: values.admin === true }, problems)}
<div class="actions"><a href="${paths.list}">${view.t.console.cancel}</a><button class="primary" type="submit">${t.create}</button></div>
</form>`;
}

import type { UserView } from '../../admin/users-api.js';
import { type Html, html } from '../html.js';
import type { PageView } from '../view.js';
import { confirmDeletionBody } from './confirm.js';
import { type FormProblems, NO_PROBLEMS, problemSummary, textField } from './identity-fields.js';
import { momentOf } from './format.js';
import { csrfField } from './frame.js';
import { sourceOf, userName } from './users.js';

/**
 * One user's page: who they are, where they come from, and what can change here — a local
 * user of the store: the password (write-only), disabled, the role admin, deletion (after a
 * confirmation naming them); a federated user: disabled only; a user of USERS_FILE: nothing.
 * The signed-in person cannot disable, demote or delete themselves: the page says so instead.
 */

export interface UserPaths {
  readonly list: string;
  /** One user's page (`?sub=`). */
  readonly user: string;
  readonly password: string;
  readonly access: string;
  readonly role: string;
  /** The confirmation (GET `?sub=`) and the deletion (POST). */
  readonly delete: string;
}

export interface UserPageContext {
  readonly paths: UserPaths;
  readonly csrfToken: string;
  /** USERS_FILE's path, for a user of the file. */
  readonly file: string;
  /** The signed-in person is this user. */
  readonly self: boolean;
  readonly minPasswordLength: number;
  /** The name of the provider a federated user signed in through. */
  readonly providerName?: string | undefined;
}

function facts(view: PageView, user: UserView, context: UserPageContext): Html {
  const t = view.t.console.identity;
  const claim = (name: string) => (typeof user.claims[name] === 'string' ? (user.claims[name] as string) : undefined);
  const item = (term: string, value: Html | string | undefined) => (value === undefined ? html`` : html`<dt>${term}</dt><dd>${value}</dd>`);
  const when = (seconds: number | undefined) => (seconds === undefined ? undefined : momentOf(seconds, view.t.lang));
  const provider = user.provider === undefined ? undefined : html`${context.providerName ?? user.provider} (<code>${user.provider}</code>)`;
  return html`<dl>${item(t.sub, html`<code>${user.sub}</code>`)}${item(t.username, user.username)}${item(t.name, claim('name'))}${item(t.email, claim('email'))}
${item(t.source, sourceOf(view, user, context.file))}${item(t.status, user.disabled ? t.disabled : t.active)}${item(t.provider, provider)}
${item(t.lastSignIn, when(user.last_sign_in_at))}${item(t.created, when(user.created_at))}${item(t.updated, when(user.updated_at))}</dl>`;
}

const hidden = (name: string, value: string) => html`<input type="hidden" name="${name}" value="${value}">`;

function passwordSection(view: PageView, user: UserView, context: UserPageContext, problems: FormProblems): Html {
  const t = view.t.console.identity;
  const field = { name: 'password', label: t.password, hint: t.passwordHint(context.minPasswordLength), type: 'password' as const };
  return html`<section aria-labelledby="password-title"><h2 id="password-title">${t.passwordTitle}</h2>
${problemSummary(view, problems)}<form method="post" action="${context.paths.password}">
${csrfField(context.csrfToken)}${hidden('sub', user.sub)}
${textField(view, { ...field, required: true, autocomplete: 'new-password' }, problems)}
<div class="actions"><button class="primary" type="submit">${t.setPassword}</button></div>
</form></section>`;
}

function accessSection(view: PageView, user: UserView, context: UserPageContext): Html {
  const t = view.t.console.identity;
  const body =
    context.self && !user.disabled
      ? html`<p class="muted">${t.selfRefused.disable}</p>`
      : html`<p>${user.disabled ? t.enableExplanation : t.disableExplanation}</p>
<form method="post" action="${context.paths.access}">
${csrfField(context.csrfToken)}${hidden('sub', user.sub)}${hidden('disabled', user.disabled ? 'false' : 'true')}
<div class="actions"><button class="${user.disabled ? 'primary' : 'danger'}" type="submit">${user.disabled ? t.enable : t.disable}</button></div>
</form>`;
  return html`<section aria-labelledby="access-title"><h2 id="access-title">${t.accessTitle}</h2>
${body}</section>`;
}

function roleSection(view: PageView, user: UserView, context: UserPageContext): Html {
  const t = view.t.console.identity;
  const admin = (user.roles ?? []).includes('admin');
  const form =
    context.self && admin
      ? html`<p class="muted">${t.selfRefused.demote}</p>`
      : html`<form method="post" action="${context.paths.role}">
${csrfField(context.csrfToken)}${hidden('sub', user.sub)}${hidden('admin', admin ? 'false' : 'true')}
<div class="actions"><button type="submit">${admin ? t.removeAdmin : t.grantAdmin}</button></div>
</form>`;
  return html`<section aria-labelledby="role-title"><h2 id="role-title">${t.roleTitle}</h2>
<p>${admin ? t.isAdmin : t.isNotAdmin}</p>
${form}</section>`;
}

function deleteSection(view: PageView, user: UserView, context: UserPageContext): Html {
  const t = view.t.console.identity;
  const body = context.self
    ? html`<p class="muted">${t.selfRefused.delete}</p>`
    : html`<p><a href="${context.paths.delete}?${String(new URLSearchParams({ sub: user.sub }))}">${t.delete}<span class="visually-hidden"> ${userName(user)}</span></a></p>`;
  return html`<section aria-labelledby="delete-title"><h2 id="delete-title">${t.delete}</h2>
${body}</section>`;
}

export function userBody(view: PageView, user: UserView, context: UserPageContext, problems: FormProblems = NO_PROBLEMS): Html {
  const t = view.t.console.identity;
  const back = html`<p><a href="${context.paths.list}">${view.t.console.back}</a></p>`;
  if (user.source === 'file')
    return html`${facts(view, user, context)}<p class="notice">${t.readOnly(html`<code>${context.file}</code>`)}</p>${back}`;
  if (user.source === 'federated')
    return html`${facts(view, user, context)}<p class="muted">${t.federatedNote}</p>${accessSection(view, user, context)}${back}`;
  return html`${facts(view, user, context)}
${passwordSection(view, user, context, problems)}
${accessSection(view, user, context)}
${roleSection(view, user, context)}
${deleteSection(view, user, context)}
${back}`;
}

/** The confirmation of a deletion, naming the user. */
export function deleteUserBody(view: PageView, user: UserView, context: Pick<UserPageContext, 'paths' | 'csrfToken'>): Html {
  return confirmDeletionBody(view, {
    explanation: view.t.console.identity.deleteUserExplanation(html`<strong>${userName(user)}</strong> (<code>${user.sub}</code>)`),
    action: context.paths.delete,
    field: { name: 'sub', value: user.sub },
    cancel: `${context.paths.user}?${new URLSearchParams({ sub: user.sub })}`,
    csrfToken: context.csrfToken,
  });
}

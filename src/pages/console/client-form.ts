import type { ClientView } from '../../admin/client-metadata.js';
import { AUTH_METHODS, GRANT_TYPES } from '../../clients/client.js';
import { type Html, html } from '../html.js';
import type { PageView } from '../view.js';
import { clientHref, type ClientPaths, clientTerms } from './clients.js';
import { choicesField, entryFormBody, type FormProblems, selectField, textField } from './fields.js';
import { csrfField } from './frame.js';

/**
 * The forms of a client added here: create and edit (the same fields; an edit carries the
 * ETag it was read at, so a change made meanwhile is refused, not overwritten), the secret
 * shown once (with a copy button that a script file adds: without it, the secret is in a
 * read-only field to select), and the confirmations of a new secret and of a deletion.
 */

/** The fields of the form, as typed (a list of redirect URIs: one per line). */
export interface ClientFormValues {
  readonly client_id: string;
  readonly client_name: string;
  readonly grant_types: readonly string[];
  readonly redirect_uris: string;
  readonly scope: string;
  readonly token_endpoint_auth_method: string;
}

export const CLIENT_FORM_FIELDS = ['client_id', 'client_name', 'grant_types', 'redirect_uris', 'scope', 'token_endpoint_auth_method'];

export const NEW_CLIENT: ClientFormValues = {
  client_id: '',
  client_name: '',
  grant_types: ['client_credentials'],
  redirect_uris: '',
  scope: '',
  token_endpoint_auth_method: 'client_secret_basic',
};

export function clientFormValues(client: ClientView): ClientFormValues {
  return {
    client_id: client.client_id,
    client_name: client.client_name ?? '',
    grant_types: client.grant_types,
    redirect_uris: client.redirect_uris.join('\n'),
    scope: client.scope,
    token_endpoint_auth_method: client.token_endpoint_auth_method,
  };
}

export interface ClientForm {
  readonly values: ClientFormValues;
  readonly problems: FormProblems;
  readonly paths: ClientPaths;
  readonly csrfToken: string;
  /** An edit: the client as read, and its ETag. */
  readonly editing?: { readonly entry: ClientView; readonly etag: string; readonly file: string };
}

export function clientFormBody(view: PageView, spec: ClientForm): Html {
  const t = view.t.console;
  const p = t.clientPages;
  const { values, problems, editing, paths } = spec;
  const idHint = editing ? undefined : p.clientIdHint;
  const fields = html`${textField(view, { name: 'client_id', label: p.clientId, value: values.client_id, hint: idHint, readOnly: editing !== undefined }, problems)}${textField(view, { name: 'client_name', label: p.name, value: values.client_name }, problems)}${choicesField(view, { name: 'grant_types', legend: p.grantTypes, options: GRANT_TYPES, chosen: values.grant_types }, problems)}${textField(view, { name: 'redirect_uris', label: p.redirectUris, value: values.redirect_uris, hint: p.redirectUrisHint, multiline: true }, problems)}${textField(view, { name: 'scope', label: p.scope, value: values.scope, hint: p.scopeHint }, problems)}${selectField(view, { name: 'token_endpoint_auth_method', label: p.authMethod, options: AUTH_METHODS, chosen: values.token_endpoint_auth_method }, problems)}`;
  const editPage = editing && { page: clientHref(paths.edit, editing.entry.client_id), etag: editing.etag };
  const form = entryFormBody(view, { problems, csrfToken: spec.csrfToken, paths, create: p.create, editing: editPage }, fields);
  if (!editing) return form;
  const { entry: client } = editing;
  const secret =
    client.token_endpoint_auth_method === 'client_secret_basic' || client.token_endpoint_auth_method === 'client_secret_post'
      ? html`<a href="${clientHref(paths.secret, client.client_id)}">${p.newSecret}</a> · `
      : html``;
  return html`${clientTerms(view, client, editing.file)}
<p>${secret}<a href="${clientHref(paths.delete, client.client_id)}">${p.deleteButton}</a></p>
<h2>${t.entries.edit}</h2>
${form}`;
}

/** The secret, once: after the creation of a client, or a new secret. */
export function clientSecretBody(
  view: PageView,
  shown: { readonly clientId: string; readonly secret: string; readonly rotated: boolean },
  paths: ClientPaths,
): Html {
  const p = view.t.console.clientPages;
  const client = html`<code>${shown.clientId}</code>`;
  return html`<p>${shown.rotated ? p.secretRotated(client) : p.secretCreated(client)}</p>
<div class="field"><label for="client_secret">${p.secretLabel}</label><input id="client_secret" type="text" readonly autocomplete="off" spellcheck="false" aria-describedby="secret-once" value="${shown.secret}"></div>
<p class="muted" id="secret-once">${p.secretOnce}</p>
<p class="copy"><button class="small" type="button" data-copy="client_secret" data-status="copy-status" data-copied="${p.copied}" data-failed="${p.copyFailed}" hidden>${p.copy}</button> <span id="copy-status" role="status"></span></p>
<p><a href="${clientHref(paths.edit, shown.clientId)}">${p.toClient}</a></p>`;
}

/** A confirmation of a change to a client (a new secret, a deletion): what happens, and the form that does it. */
export function confirmClientBody(
  view: PageView,
  confirm: {
    readonly client: ClientView;
    readonly etag: string;
    readonly action: string;
    readonly explanation: Html;
    readonly button: string;
    readonly file: string;
  },
  paths: ClientPaths,
  csrfToken: string,
): Html {
  const t = view.t.console;
  const { client } = confirm;
  const registered = client.source === 'registration' ? html`<p>${t.clientPages.deleteRegistration}</p>\n` : html``;
  return html`<p>${confirm.explanation}</p>
${registered}<p>${t.entries.deleteForever}</p>
${clientTerms(view, client, confirm.file)}
<form method="post" action="${confirm.action}">
${csrfField(csrfToken)}
<input type="hidden" name="client_id" value="${client.client_id}">
<input type="hidden" name="etag" value="${confirm.etag}">
<div class="actions"><a href="${client.source === 'admin' ? clientHref(paths.edit, client.client_id) : paths.list}">${t.cancel}</a><button class="primary" type="submit">${confirm.button}</button></div>
</form>`;
}

/** How the confirmations name a client: its name (if any) and its id. */
export function clientNamed(client: ClientView): Html {
  return client.client_name === undefined
    ? html`<code>${client.client_id}</code>`
    : html`<strong>${client.client_name}</strong> (<code>${client.client_id}</code>)`;
}

import { type Html, html } from '../html.js';
import type { PageView } from '../view.js';
import { checkbox, idField, type FormProblems, NO_PROBLEMS, problemSummary, selectField, textArea, textField } from './identity-fields.js';
import { csrfField } from './frame.js';

/**
 * The form of an identity provider (IDENTITY_PROVIDERS_FILE's fields), one type at a time:
 * OpenID Connect or GitHub. The client secret is write-only: a new provider's is required, an
 * existing one's field sets a new secret and left empty keeps the one sealed in the store; the
 * page never holds it. Rules and parameters are JSON, lists one item per line.
 */

export type ProviderType = 'oidc' | 'github';

/** The form's fields as sent (or as an entry fills them): text, and "true" for a ticked box. */
export type ProviderFormValues = Readonly<Record<string, string | undefined>>;

export const PROVIDER_FORM_FIELDS = [
  'id',
  'name',
  'client_id',
  'client_secret',
  'issuer',
  'scope',
  'token_endpoint_auth_method',
  'required_claims',
  'id_jag',
  'base_url',
  'api_url',
  'allowed_organizations',
  'allowed_email_domains',
  'keep_tokens',
  'end_session',
  'allow_private_addresses',
  'authorization_params',
  'admin_rule',
] as const;

export interface ProviderFormContext {
  readonly type: ProviderType;
  readonly action: string;
  readonly cancel: string;
  readonly csrfToken: string;
  /** Editing: the id is fixed; whether a secret is kept. */
  readonly existing?: { readonly secretKept: boolean };
}

function typeFields(view: PageView, type: ProviderType, v: ProviderFormValues, problems: FormProblems): Html {
  const t = view.t.console.identity;
  const optional = (label: string) => `${label} ${t.optional}`;
  if (type === 'github')
    return html`${textField(view, { name: 'base_url', label: optional(t.baseUrl), value: v.base_url, type: 'url', code: true }, problems)}
${textField(view, { name: 'api_url', label: optional(t.apiUrl), value: v.api_url, type: 'url', code: true }, problems)}
${textField(view, { name: 'scope', label: optional(t.scope), value: v.scope, code: true }, problems)}
${textArea(view, { name: 'allowed_organizations', label: optional(t.allowedOrganizations), hint: t.listHint, value: v.allowed_organizations, rows: 3 }, problems)}`;
  const methods = [
    { value: '', label: t.providerDefault },
    { value: 'client_secret_basic', label: 'client_secret_basic' },
    { value: 'client_secret_post', label: 'client_secret_post' },
  ];
  return html`${textField(view, { name: 'issuer', label: t.issuer, value: v.issuer, type: 'url', required: true, code: true }, problems)}
${textField(view, { name: 'scope', label: optional(t.scope), value: v.scope, code: true }, problems)}
${selectField(view, { name: 'token_endpoint_auth_method', label: t.tokenAuthMethod, value: v.token_endpoint_auth_method ?? '', options: methods }, problems)}
${textArea(view, { name: 'required_claims', label: optional(t.requiredClaims), hint: t.jsonHint, value: v.required_claims, rows: 3 }, problems)}
${checkbox(view, { name: 'id_jag', label: t.idJag, checked: v.id_jag === 'true' }, problems)}`;
}

export function providerFormBody(
  view: PageView,
  values: ProviderFormValues,
  context: ProviderFormContext,
  problems: FormProblems = NO_PROBLEMS,
): Html {
  const t = view.t.console.identity;
  const v = values;
  const optional = (label: string) => `${label} ${t.optional}`;
  const id = idField(view, v.id, context.existing !== undefined, problems);
  const secret = context.existing
    ? textField(
        view,
        {
          name: 'client_secret',
          label: t.clientSecretNew,
          hint: context.existing.secretKept ? t.clientSecretKept : t.clientSecretNone,
          type: 'password',
          autocomplete: 'new-password',
        },
        problems,
      )
    : textField(
        view,
        { name: 'client_secret', label: t.clientSecret, type: 'password', required: true, autocomplete: 'new-password' },
        problems,
      );
  return html`${problemSummary(view, problems)}<form method="post" action="${context.action}">
${csrfField(context.csrfToken)}<input type="hidden" name="type" value="${context.type}">
${id}
${textField(view, { name: 'name', label: t.displayName, value: v.name, required: true }, problems)}
${textField(view, { name: 'client_id', label: t.clientId, value: v.client_id, required: true, code: true }, problems)}
${secret}
${typeFields(view, context.type, v, problems)}
${textArea(view, { name: 'admin_rule', label: optional(t.adminRule), hint: t.adminRuleHint, value: v.admin_rule, rows: 3 }, problems)}
${textArea(view, { name: 'allowed_email_domains', label: optional(t.allowedEmailDomains), hint: t.listHint, value: v.allowed_email_domains, rows: 3 }, problems)}
${textArea(view, { name: 'authorization_params', label: optional(t.authorizationParams), hint: t.jsonHint, value: v.authorization_params, rows: 3 }, problems)}
${checkbox(view, { name: 'keep_tokens', label: t.keepTokens, checked: v.keep_tokens === 'true' }, problems)}
${checkbox(view, { name: 'end_session', label: t.endSession, checked: v.end_session === 'true' }, problems)}
${checkbox(view, { name: 'allow_private_addresses', label: t.allowPrivate, checked: v.allow_private_addresses === 'true' }, problems)}
<div class="actions"><a href="${context.cancel}">${view.t.console.cancel}</a><button class="primary" type="submit">${context.existing ? t.save : t.create}</button></div>
</form>`;
}

import { z } from 'zod';
import type { EntryView } from '../../admin/entries-api.js';
import { PROVIDER_FORM_FIELDS, type ProviderFormValues } from '../../pages/console/provider-form.js';
import type { EntryDocument } from '../../store/entry-types.js';
import { formText } from './declare.js';
import { defined, flagText, jsonFields, jsonText, linesField, linesText, textOf } from './form-problems.js';

/**
 * An identity provider's form and its entry (IDENTITY_PROVIDERS_FILE's fields): the document
 * the form describes, the form filled from an entry as the admin API answers it (never a
 * secret), and which form field a validation problem's path belongs to.
 */

export const ProviderKind = z.enum(['oidc', 'github']);
/** Every field as text (empty: absent); the secret as typed, never trimmed. */
export const ProviderForm = z.object({
  ...Object.fromEntries(PROVIDER_FORM_FIELDS.map((name) => [name, formText])),
  type: ProviderKind,
  client_secret: z.preprocess((value) => (value === '' ? undefined : value), z.string().max(4096).optional()),
});
export type ProviderFormData = z.output<typeof ProviderForm>;

/** The entry the form describes (IDENTITY_PROVIDERS_FILE's fields); JSON that is not JSON is a problem of its field. */
export function providerDocument(form: ProviderFormData): EntryDocument {
  const f = form as Record<string, string | undefined>;
  const parsed = jsonFields({ required_claims: f.required_claims, authorization_params: f.authorization_params, admin_rule: f.admin_rule });
  const common = defined({
    type: form.type,
    id: f.id,
    name: f.name,
    client_id: f.client_id,
    client_secret: form.client_secret,
    keep_tokens: f.keep_tokens === 'true',
    end_session: f.end_session === 'true',
    allow_private_addresses: f.allow_private_addresses === 'true',
    authorization_params: parsed.authorization_params,
    roles: parsed.admin_rule === undefined ? undefined : { admin: parsed.admin_rule },
    allowed_email_domains: linesField(f.allowed_email_domains),
  });
  if (form.type === 'github')
    return {
      ...common,
      ...defined({ base_url: f.base_url, api_url: f.api_url, scope: f.scope, allowed_organizations: linesField(f.allowed_organizations) }),
    };
  return {
    ...common,
    ...defined({
      issuer: f.issuer,
      scope: f.scope,
      token_endpoint_auth_method: f.token_endpoint_auth_method,
      required_claims: parsed.required_claims,
      id_jag: f.id_jag === 'true',
    }),
  };
}

/** The form filled with an entry as the admin API answers it (never a secret). */
export function providerValuesOf(entry: EntryView): ProviderFormValues {
  const roles = entry.roles as { admin?: unknown } | undefined;
  return {
    ...Object.fromEntries(
      ['id', 'name', 'client_id', 'issuer', 'scope', 'token_endpoint_auth_method', 'base_url', 'api_url'].map((name) => [
        name,
        textOf(entry[name]),
      ]),
    ),
    ...Object.fromEntries(['id_jag', 'keep_tokens', 'end_session', 'allow_private_addresses'].map((name) => [name, flagText(entry[name])])),
    required_claims: jsonText(entry.required_claims),
    authorization_params: jsonText(entry.authorization_params),
    admin_rule: jsonText(roles?.admin),
    allowed_organizations: linesText(entry.allowed_organizations),
    allowed_email_domains: linesText(entry.allowed_email_domains),
  };
}

/** The form field of a problem's path (`roles.admin.groups` is the administrators' rule). */
export const providerField = (path: string): string | undefined => {
  const first = path.split('.')[0] ?? '';
  if (first === 'roles') return 'admin_rule';
  return (PROVIDER_FORM_FIELDS as readonly string[]).includes(first) ? first : undefined;
};

/** What the form sent, to fill it again (never the secret). */
export const sentValues = ({ client_secret: _secret, ...form }: ProviderFormData): ProviderFormValues => form as ProviderFormValues;

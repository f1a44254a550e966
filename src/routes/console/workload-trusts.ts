import { z } from 'zod';
import type { EntryView } from '../../admin/entries-api.js';
import { PAGE_LIMIT } from '../../admin/paging.js';
import type { FormProblems } from '../../pages/console/identity-fields.js';
import {
  TRUST_FORM_FIELDS,
  trustFacts,
  trustFormBody,
  type TrustFormValues,
  trustLink,
  trustsBody,
} from '../../pages/console/workload-trusts.js';
import { html } from '../../pages/html.js';
import type { EntryDocument } from '../../store/entry-types.js';
import { type ConsoleContent, type ConsoleContext, consoleAction, consolePage, type ConsoleRoute, formText } from './declare.js';
import { EntryId, entryDeletion } from './entry-deletion.js';
import { auditChange, EDIT_PROBLEMS, defined, firstSegmentIn, jsonFields, jsonText, orFormAgain, textOf } from './form-problems.js';
import type { IdentityPagesDependencies } from './identity.js';

/**
 * The console's workload trusts, through the admin API's own operations: validated by
 * WORKLOAD_TRUSTS_FILE's schema and checks (one trust per issuer), the same audit events with
 * the person as actor. The rules and an inline JWK Set are JSON in textareas; what is wrong
 * with them comes back next to the field, with its path (`0.scope`).
 */

const pathsOf = (base: string) => ({
  list: `${base}/workload-trusts`,
  create: `${base}/workload-trusts/new`,
  trust: `${base}/workload-trusts/trust`,
  edit: `${base}/workload-trusts/edit`,
  delete: `${base}/workload-trusts/delete`,
});

const TrustForm = z.object(Object.fromEntries(TRUST_FORM_FIELDS.map((name) => [name, formText])));
type TrustFormData = Readonly<Record<string, string | undefined>>;

/** The entry the form describes; JSON that is not JSON is a problem of its field. */
function trustDocument(form: TrustFormData): EntryDocument {
  const parsed = jsonFields({ jwks: form.jwks, rules: form.rules });
  return defined({
    id: form.id,
    issuer: form.issuer,
    audience: form.audience,
    jwks_uri: form.jwks_uri,
    jwks: parsed.jwks,
    require_jti: form.require_jti === 'true',
    allow_private_addresses: form.allow_private_addresses === 'true',
    // Absent, the schema names the field as required.
    rules: parsed.rules,
  });
}

function valuesOf(entry: EntryView): TrustFormValues {
  return {
    id: textOf(entry.id),
    issuer: textOf(entry.issuer),
    audience: textOf(entry.audience),
    jwks_uri: textOf(entry.jwks_uri),
    jwks: jsonText(entry.jwks),
    rules: jsonText(entry.rules),
    require_jti: entry.require_jti === true ? 'true' : undefined,
    allow_private_addresses: entry.allow_private_addresses === true ? 'true' : undefined,
  };
}

const trustField = firstSegmentIn(TRUST_FORM_FIELDS);

export function workloadTrustPages(deps: IdentityPagesDependencies): ConsoleRoute[] {
  const trusts = deps.api.workloadTrusts;
  const newTrust = (context: ConsoleContext, values: TrustFormValues, problems?: FormProblems): ConsoleContent => {
    const paths = pathsOf(context.base);
    const form = { action: paths.create, cancel: paths.list, csrfToken: context.csrfToken, existing: false };
    return { title: context.t.console.identity.newTrust, body: trustFormBody(context.view, values, form, problems) };
  };
  const trustPage = async (
    context: ConsoleContext,
    id: string,
    values?: TrustFormValues,
    problems?: FormProblems,
  ): Promise<ConsoleContent> => {
    const paths = pathsOf(context.base);
    const t = context.t.console.identity;
    const { view: entry } = await trusts.get(id);
    const facts = trustFacts(context.view, entry, deps.files.workloads);
    const back = html`<p><a href="${paths.list}">${context.t.console.back}</a></p>`;
    if (entry.source !== 'admin') {
      const rules = html`<h2>${t.rules}</h2><pre><code>${JSON.stringify(entry.rules, null, 2)}</code></pre>`;
      return {
        title: id,
        body: html`${facts}<p class="notice">${t.readOnly(html`<code>${deps.files.workloads}</code>`)}</p>${rules}${back}`,
      };
    }
    const form = trustFormBody(
      context.view,
      values ?? valuesOf(entry),
      { action: paths.edit, cancel: paths.list, csrfToken: context.csrfToken, existing: true },
      problems,
    );
    const remove = html`<p><a href="${paths.delete}?${String(new URLSearchParams({ id }))}">${t.delete}<span class="visually-hidden"> ${id}</span></a></p>`;
    return { title: id, body: html`${facts}<h2>${t.edit}</h2>${form}${remove}${back}` };
  };
  return [
    consolePage({
      path: '/workload-trusts',
      nav: 'workload-trusts',
      query: z.object({ cursor: z.string().max(1024).optional() }),
      render: async ({ query, view, t, base }) => {
        const page = await trusts.list({ limit: PAGE_LIMIT.default, cursor: query.cursor });
        const next = page.next === undefined ? undefined : `${pathsOf(base).list}?${new URLSearchParams({ cursor: page.next })}`;
        return { title: t.console.nav['workload-trusts'], body: trustsBody(view, page, pathsOf(base), deps.files.workloads, next) };
      },
    }),
    consolePage({ path: '/workload-trusts/new', nav: 'workload-trusts', render: async (context) => newTrust(context, {}) }),
    consoleAction({
      path: '/workload-trusts/new',
      returnTo: '/workload-trusts',
      form: TrustForm,
      handle: async (context) => {
        const form = context.form as TrustFormData;
        return orFormAgain(
          async () => {
            const created = await trusts.create(trustDocument(form));
            const id = String(created.view.id);
            auditChange(deps.events, context.actor, { entity: 'workload_trust', id, action: 'created', fields: created.fields });
            return { redirect: `/workload-trusts/trust?${new URLSearchParams({ id })}`, notice: 'trust-created' };
          },
          (problems) => newTrust(context, form, problems),
          trustField,
        );
      },
    }),
    consolePage({
      path: '/workload-trusts/trust',
      nav: 'workload-trusts',
      query: EntryId,
      render: async (context) => trustPage(context, context.query.id),
    }),
    consoleAction({
      path: '/workload-trusts/edit',
      returnTo: '/workload-trusts',
      form: TrustForm,
      handle: async (context) => {
        const form = context.form as TrustFormData;
        const id = form.id ?? '';
        return orFormAgain(
          async () => {
            const replaced = await trusts.replace(id, trustDocument(form), undefined);
            auditChange(deps.events, context.actor, { entity: 'workload_trust', id, action: 'replaced', fields: replaced.fields });
            return { redirect: `/workload-trusts/trust?${new URLSearchParams({ id })}`, notice: 'trust-saved' };
          },
          (problems) => trustPage(context, id, form, problems),
          trustField,
          EDIT_PROBLEMS,
        );
      },
    }),
    ...entryDeletion({
      path: '/workload-trusts',
      nav: 'workload-trusts',
      entity: 'workload_trust',
      api: trusts,
      events: deps.events,
      notice: 'trust-deleted',
      nameOf: (_entry, id) => id,
      explanation: (context, _entry, id) => context.t.console.identity.deleteTrustExplanation(html`<code>${id}</code>`),
      pageOf: (context, id) => trustPage(context, id),
      linkOf: (base, id) => trustLink(pathsOf(base), id),
    }),
  ];
}

import { z } from 'zod';
import type { EntryView } from '../../admin/entries-api.js';
import { PAGE_LIMIT } from '../../admin/paging.js';
import type { FormProblems } from '../../pages/console/identity-fields.js';
import { providerFormBody, type ProviderFormValues, type ProviderType } from '../../pages/console/provider-form.js';
import { type ListedProvider, providerFacts, providerLink, providersBody } from '../../pages/console/providers.js';
import { html } from '../../pages/html.js';
import { type ConsoleContent, type ConsoleContext, consoleAction, consolePage, type ConsoleRoute } from './declare.js';
import { EntryId, entryDeletion } from './entry-deletion.js';
import { auditChange, EDIT_PROBLEMS, orFormAgain } from './form-problems.js';
import { ProviderForm, ProviderKind, providerDocument, providerField, providerValuesOf, sentValues } from './provider-documents.js';
import type { IdentityPagesDependencies } from './identity.js';

/**
 * The console's identity providers, through the admin API's own operations (the same
 * validation as IDENTITY_PROVIDERS_FILE, the secret sealed and never answered, the same audit
 * events with the person as actor): the list with each redirect URI and discovery status, a
 * new provider, one provider's page (its form, or read-only for a file entry), deletion after
 * a confirmation naming it.
 */

const pathsOf = (base: string) => ({
  list: `${base}/providers`,
  create: `${base}/providers/new`,
  provider: `${base}/providers/provider`,
  edit: `${base}/providers/edit`,
  delete: `${base}/providers/delete`,
});

export function providerPages(deps: IdentityPagesDependencies): ConsoleRoute[] {
  const providers = deps.api.providers;
  const listed = async (entry: EntryView, fresh = false): Promise<ListedProvider> => ({
    view: entry,
    redirectUri: deps.redirectUriOf(String(entry.id)),
    discovery: await deps.discovery.status(entry, fresh),
  });
  const newProvider = (
    context: ConsoleContext,
    type: ProviderType,
    values: ProviderFormValues,
    problems?: FormProblems,
  ): ConsoleContent => {
    const paths = pathsOf(context.base);
    const t = context.t.console.identity;
    return {
      title: type === 'github' ? t.newGithub : t.newOidc,
      body: providerFormBody(
        context.view,
        values,
        { type, action: paths.create, cancel: paths.list, csrfToken: context.csrfToken },
        problems,
      ),
    };
  };
  const providerPage = async (
    context: ConsoleContext,
    id: string,
    options: { fresh?: boolean; values?: ProviderFormValues; problems?: FormProblems } = {},
  ): Promise<ConsoleContent> => {
    const paths = pathsOf(context.base);
    const t = context.t.console.identity;
    const { view: entry } = await providers.get(id);
    const facts = providerFacts(context.view, await listed(entry, options.fresh), paths, deps.files.providers);
    const back = html`<p><a href="${paths.list}">${context.t.console.back}</a></p>`;
    if (entry.source !== 'admin')
      return {
        title: String(entry.name),
        body: html`${facts}<p class="notice">${t.readOnly(html`<code>${deps.files.providers}</code>`)}</p>${back}`,
      };
    const type: ProviderType = entry.type === 'github' ? 'github' : 'oidc';
    const form = providerFormBody(
      context.view,
      options.values ?? providerValuesOf(entry),
      {
        type,
        action: paths.edit,
        cancel: paths.list,
        csrfToken: context.csrfToken,
        existing: { secretKept: entry.client_secret_set === true },
      },
      options.problems,
    );
    const remove = html`<p><a href="${paths.delete}?${String(new URLSearchParams({ id }))}">${t.delete}<span class="visually-hidden"> ${String(entry.name)}</span></a></p>`;
    return { title: String(entry.name), body: html`${facts}<h2>${t.edit}</h2>${form}${remove}${back}` };
  };
  return [
    consolePage({
      path: '/providers',
      nav: 'providers',
      query: z.object({ cursor: z.string().max(1024).optional() }),
      render: async ({ query, view, t, base }) => {
        const page = await providers.list({ limit: PAGE_LIMIT.default, cursor: query.cursor });
        const items = await Promise.all(page.items.map((entry) => listed(entry)));
        const next = page.next === undefined ? undefined : `${pathsOf(base).list}?${new URLSearchParams({ cursor: page.next })}`;
        return { title: t.console.nav.providers, body: providersBody(view, { items }, pathsOf(base), deps.files.providers, next) };
      },
    }),
    consolePage({
      path: '/providers/new',
      nav: 'providers',
      query: z.object({ type: ProviderKind.default('oidc') }),
      render: async (context) => newProvider(context, context.query.type, {}),
    }),
    consoleAction({
      path: '/providers/new',
      returnTo: '/providers',
      form: ProviderForm,
      handle: async (context) =>
        orFormAgain(
          async () => {
            const created = await providers.create(providerDocument(context.form));
            const id = String(created.view.id);
            auditChange(deps.events, context.actor, { entity: 'provider', id, action: 'created', fields: created.fields });
            return { redirect: `/providers/provider?${new URLSearchParams({ id })}`, notice: 'provider-created' };
          },
          (problems) => newProvider(context, context.form.type, sentValues(context.form), problems),
          providerField,
        ),
    }),
    consolePage({
      path: '/providers/provider',
      nav: 'providers',
      query: EntryId.extend({ check: z.literal('now').optional() }),
      render: async (context) => providerPage(context, context.query.id, { fresh: context.query.check === 'now' }),
    }),
    consoleAction({
      path: '/providers/edit',
      returnTo: '/providers',
      form: ProviderForm,
      handle: async (context) => {
        const id = (context.form as Record<string, string | undefined>).id ?? '';
        return orFormAgain(
          async () => {
            const replaced = await providers.replace(id, providerDocument(context.form), undefined);
            auditChange(deps.events, context.actor, { entity: 'provider', id, action: 'replaced', fields: replaced.fields });
            return { redirect: `/providers/provider?${new URLSearchParams({ id })}`, notice: 'provider-saved' };
          },
          (problems) => providerPage(context, id, { values: sentValues(context.form), problems }),
          providerField,
          EDIT_PROBLEMS,
        );
      },
    }),
    ...entryDeletion({
      path: '/providers',
      nav: 'providers',
      entity: 'provider',
      api: providers,
      events: deps.events,
      notice: 'provider-deleted',
      nameOf: (entry) => String(entry.name),
      explanation: (context, entry, id) =>
        context.t.console.identity.deleteProviderExplanation(html`<strong>${String(entry.name)}</strong> (<code>${id}</code>)`),
      pageOf: (context, id) => providerPage(context, id),
      linkOf: (base, id) => providerLink(pathsOf(base), id),
    }),
  ];
}

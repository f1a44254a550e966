import { z } from 'zod';
import { recordAdminChange, type AdminActor, type AdminAction } from '../../admin/audit.js';
import { CLIENT_SOURCES, type ClientView, parsedMetadata } from '../../admin/client-metadata.js';
import type { ClientAnswer } from '../../admin/clients-api.js';
import { PAGE_LIMIT } from '../../admin/paging.js';
import { AdminProblem } from '../../admin/problems.js';
import {
  CLIENT_FORM_FIELDS,
  type ClientFormValues,
  clientFormBody,
  clientFormValues,
  clientNamed,
  clientSecretBody,
  confirmClientBody,
  NEW_CLIENT,
} from '../../pages/console/client-form.js';
import { clientHref, clientPaths, clientsBody, readOnlyClientBody } from '../../pages/console/clients.js';
import { COPY_SCRIPT_PATH } from '../../pages/console/copy-script.js';
import { NO_PROBLEMS } from '../../pages/console/fields.js';
import type { PageView } from '../../pages/view.js';
import { type ConsoleContent, type ConsoleContext, consoleAction, consolePage, type ConsoleRoute, formList, formText } from './declare.js';
import { EntryIdField, etagDeletion } from './entry-deletion.js';
import {
  changeable,
  changeOrForm,
  type ConsoleEntriesDependencies,
  editOrForm,
  EtagField,
  formOrReadOnly,
  ifMatchOf,
  linesOf,
} from './entry-forms.js';

/**
 * The console's clients, over the admin API's clients (src/admin/clients-api.ts): the list,
 * a new client, a client's page (its form; read-only for the file's and for registrations),
 * a new secret and a deletion after a confirmation. A secret is shown once, on the page that
 * answers the change that made it; every change is an `admin.changed` event by the person.
 */

const blankAsUndefined = (value: unknown) => (value === '' ? undefined : value);
const ClientQuery = z.object({ client_id: EntryIdField });
const ClientForm = z.object({
  client_id: formText,
  client_name: formText,
  grant_types: formList,
  redirect_uris: formText,
  scope: formText,
  token_endpoint_auth_method: z.string().max(100),
});
const EditForm = ClientForm.extend({ client_id: EntryIdField, etag: EtagField });
const ChangeForm = ClientQuery.extend({ etag: EtagField });

function valuesOf(form: z.output<typeof ClientForm>): ClientFormValues {
  return {
    client_id: form.client_id ?? '',
    client_name: form.client_name ?? '',
    grant_types: form.grant_types,
    redirect_uris: form.redirect_uris ?? '',
    scope: form.scope ?? '',
    token_endpoint_auth_method: form.token_endpoint_auth_method,
  };
}

const REFUSED = { fields: CLIENT_FORM_FIELDS, taken: 'client_id' };

/** A client this console changes: one added here or registered (the file's are refused as the API refuses them, before anything else). */
const changeableClient = (deps: ConsoleEntriesDependencies, clientId: string) =>
  changeable(deps.api.clients.get(clientId), `client "${clientId}"`, deps.files.clients);

/** One `admin.changed` event: the person, what they did to which client, the names of the fields written. */
function audit(deps: ConsoleEntriesDependencies, actor: AdminActor, id: string, action: AdminAction, fields?: readonly string[]): void {
  recordAdminChange(deps.events, { actor, entity: 'client', id, action, ...(fields ? { fields } : {}) });
}

export function clientPages(deps: ConsoleEntriesDependencies): ConsoleRoute[] {
  const api = deps.api.clients;
  const file = deps.files.clients;
  const bodies = { pathsOf: clientPaths, file, valuesOf: clientFormValues, form: clientFormBody, readOnly: readOnlyClientBody };
  /** The secret, once, after the change that made it; no secret made: back to the client. */
  const secretOr = (view: PageView, base: string, answer: { view: ClientView & { client_secret?: string } }, rotated: boolean) => {
    const { client_id: clientId, client_secret: secret } = answer.view;
    if (secret === undefined)
      return { redirect: clientHref('/clients/edit', clientId), notice: rotated ? 'client-saved' : 'client-created' } as const;
    const body = clientSecretBody(view, { clientId, secret, rotated }, clientPaths(base));
    return { title: view.t.console.clientPages.secretTitle, body, status: rotated ? 200 : 201, scripts: [COPY_SCRIPT_PATH] };
  };
  return [
    consolePage({
      path: '/clients',
      nav: 'clients',
      query: z.object({
        source: z.preprocess(blankAsUndefined, z.enum(CLIENT_SOURCES).optional()),
        q: formText,
        cursor: z.string().max(1024).optional(),
      }),
      render: async ({ query, view, t, base }) => {
        const page = await api.list({ source: query.source, q: query.q, limit: PAGE_LIMIT.default, cursor: query.cursor });
        return { title: t.console.nav.clients, body: clientsBody(view, query, page, clientPaths(base), file) };
      },
    }),
    consolePage({
      path: '/clients/new',
      nav: 'clients',
      render: async ({ view, t, base, csrfToken }) => ({
        title: t.console.clientPages.newClient,
        body: clientFormBody(view, { values: NEW_CLIENT, problems: NO_PROBLEMS, paths: clientPaths(base), csrfToken }),
      }),
    }),
    consoleAction({
      path: '/clients/new',
      returnTo: '/clients/new',
      form: ClientForm,
      handle: async ({ form, view, t, base, csrfToken, actor }) => {
        const values = valuesOf(form);
        const paths = clientPaths(base);
        return changeOrForm(
          async () => {
            const created = await api.create(
              parsedMetadata(
                {
                  ...(form.client_id === undefined ? {} : { client_id: form.client_id }),
                  ...(form.client_name === undefined ? {} : { client_name: form.client_name }),
                  grant_types: form.grant_types,
                  redirect_uris: linesOf(values.redirect_uris),
                  ...(form.scope === undefined ? {} : { scope: form.scope }),
                  token_endpoint_auth_method: form.token_endpoint_auth_method,
                },
                'the client is not valid',
              ),
            );
            audit(deps, actor, created.view.client_id, 'created', created.fields);
            return secretOr(view, base, created, false);
          },
          REFUSED,
          (problems) => ({ title: t.console.clientPages.newClient, body: clientFormBody(view, { values, problems, paths, csrfToken }) }),
        );
      },
    }),
    consolePage({
      path: '/clients/edit',
      nav: 'clients',
      query: ClientQuery,
      render: async (context): Promise<ConsoleContent> => {
        const found = await api.get(context.query.client_id);
        return { title: context.t.console.clientPages.editTitle(found.view.client_id), body: formOrReadOnly(context, found, bodies) };
      },
    }),
    consoleAction({
      path: '/clients/edit',
      returnTo: '/clients',
      form: EditForm,
      handle: async ({ form, view, t, base, csrfToken, actor }) => {
        const values = valuesOf(form);
        const paths = clientPaths(base);
        return editOrForm(
          changeableClient(deps, form.client_id),
          form.etag,
          async (_client, ifMatch) => {
            const patch = {
              client_name: form.client_name ?? null,
              grant_types: form.grant_types,
              redirect_uris: linesOf(values.redirect_uris),
              scope: form.scope ?? null,
              token_endpoint_auth_method: form.token_endpoint_auth_method,
            };
            const patched = await api.patch(form.client_id, patch, ifMatch);
            audit(deps, actor, form.client_id, patched.action, patched.fields);
            const shown = secretOr(view, base, patched, true);
            return 'redirect' in shown ? { redirect: clientHref('/clients/edit', form.client_id), notice: 'client-saved' } : shown;
          },
          REFUSED,
          (problems, editing) => ({
            title: t.console.clientPages.editTitle(form.client_id),
            body: clientFormBody(view, { values, problems, paths, csrfToken, editing: { ...editing, file } }),
          }),
        );
      },
    }),
    ...changePages(deps),
  ];
}

/** A new secret and a deletion: each a confirmation (GET) and the change (POST). */
function changePages(deps: ConsoleEntriesDependencies): ConsoleRoute[] {
  const api = deps.api.clients;
  const file = deps.files.clients;
  /** What the change does to the client, and the form that does it at the ETag read. */
  const confirmation = (kind: 'secret' | 'delete', { view, t, base, csrfToken }: ConsoleContext, { view: client, etag }: ClientAnswer) => {
    const p = t.console.clientPages;
    const paths = clientPaths(base);
    const [title, explanation, button] =
      kind === 'secret'
        ? [p.rotateTitle, p.rotateExplanation(clientNamed(client)), p.rotateButton]
        : [p.deleteTitle, p.deleteExplanation(clientNamed(client)), p.deleteButton];
    const action = kind === 'secret' ? paths.secret : paths.delete;
    return { title, body: confirmClientBody(view, { client, etag, action, explanation, button, file }, paths, csrfToken) };
  };
  return [
    consolePage({
      path: '/clients/secret',
      nav: 'clients',
      query: ClientQuery,
      render: async (context) => {
        const found = await changeableClient(deps, context.query.client_id);
        if (found.view.source === 'registration')
          throw new AdminProblem(
            'conflict-registration',
            `client "${found.view.client_id}" is dynamically registered: it can only be deleted here`,
          );
        return confirmation('secret', context, found);
      },
    }),
    consoleAction({
      path: '/clients/secret',
      returnTo: '/clients',
      form: ChangeForm,
      handle: async ({ form, view, base, actor }) => {
        await changeableClient(deps, form.client_id);
        const rotated = await api.rotateSecret(form.client_id, ifMatchOf(form.etag));
        audit(deps, actor, form.client_id, 'secret_rotated', rotated.fields);
        const secret = rotated.view.client_secret as string;
        const body = clientSecretBody(view, { clientId: form.client_id, secret, rotated: true }, clientPaths(base));
        return { title: view.t.console.clientPages.secretTitle, body, scripts: [COPY_SCRIPT_PATH] };
      },
    }),
    ...etagDeletion({
      path: '/clients',
      nav: 'clients',
      entity: 'client',
      events: deps.events,
      notice: 'client-deleted',
      field: 'client_id',
      changeable: (clientId) => changeableClient(deps, clientId),
      confirmation: (context, found) => confirmation('delete', context, found),
      delete: (clientId, ifMatch) => api.delete(clientId, ifMatch),
    }),
  ];
}

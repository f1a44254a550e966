import { z } from 'zod';
import { recordAdminChange, type AdminActor, type AdminAction } from '../../admin/audit.js';
import { CLIENT_SOURCES, type ClientView, parsedMetadata } from '../../admin/client-metadata.js';
import { PAGE_LIMIT } from '../../admin/paging.js';
import { AdminProblem, FileEntryConflict } from '../../admin/problems.js';
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
import { type ConsoleContent, consoleAction, consolePage, type ConsoleRoute, formList, formText } from './declare.js';
import { changeOrForm, type ConsoleEntriesDependencies, EtagField, ifMatchOf, linesOf } from './entry-forms.js';

/**
 * The console's clients, over the admin API's clients (src/admin/clients-api.ts): the list,
 * a new client, a client's page (its form; read-only for the file's and for registrations),
 * a new secret and a deletion after a confirmation. A secret is shown once, on the page that
 * answers the change that made it; every change is an `admin.changed` event by the person.
 */

const blankAsUndefined = (value: unknown) => (value === '' ? undefined : value);
const ClientQuery = z.object({ client_id: z.string().min(1).max(2048) });
const ClientForm = z.object({
  client_id: formText,
  client_name: formText,
  grant_types: formList,
  redirect_uris: formText,
  scope: formText,
  token_endpoint_auth_method: z.string().max(100),
});
const EditForm = ClientForm.extend({ client_id: z.string().min(1).max(2048), etag: EtagField });
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
async function changeable(deps: ConsoleEntriesDependencies, clientId: string) {
  const found = await deps.api.clients.get(clientId);
  if (found.view.source === 'file')
    throw new FileEntryConflict(`client "${clientId}" is declared in ${deps.files.clients}: change it there`);
  return found;
}

/** One `admin.changed` event: the person, what they did to which client, the names of the fields written. */
function audit(deps: ConsoleEntriesDependencies, actor: AdminActor, id: string, action: AdminAction, fields?: readonly string[]): void {
  recordAdminChange(deps.events, { actor, entity: 'client', id, action, ...(fields ? { fields } : {}) });
}

export function clientPages(deps: ConsoleEntriesDependencies): ConsoleRoute[] {
  const api = deps.api.clients;
  const file = deps.files.clients;
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
      render: async ({ query, view, t, base, csrfToken }): Promise<ConsoleContent> => {
        const { view: client, etag } = await api.get(query.client_id);
        const title = t.console.clientPages.editTitle(client.client_id);
        const paths = clientPaths(base);
        if (client.source !== 'admin') return { title, body: readOnlyClientBody(view, client, paths, file) };
        const editing = { client, etag, file };
        return {
          title,
          body: clientFormBody(view, { values: clientFormValues(client), problems: NO_PROBLEMS, paths, csrfToken, editing }),
        };
      },
    }),
    consoleAction({
      path: '/clients/edit',
      returnTo: '/clients',
      form: EditForm,
      handle: async ({ form, view, t, base, csrfToken, actor }) => {
        const values = valuesOf(form);
        const paths = clientPaths(base);
        const { view: client } = await changeable(deps, form.client_id);
        return changeOrForm(
          async () => {
            const patch = {
              client_name: form.client_name ?? null,
              grant_types: form.grant_types,
              redirect_uris: linesOf(values.redirect_uris),
              scope: form.scope ?? null,
              token_endpoint_auth_method: form.token_endpoint_auth_method,
            };
            const patched = await api.patch(form.client_id, patch, ifMatchOf(form.etag));
            audit(deps, actor, form.client_id, patched.action, patched.fields);
            const shown = secretOr(view, base, patched, true);
            return 'redirect' in shown ? { redirect: clientHref('/clients/edit', form.client_id), notice: 'client-saved' } : shown;
          },
          REFUSED,
          (problems) => ({
            title: t.console.clientPages.editTitle(form.client_id),
            body: clientFormBody(view, { values, problems, paths, csrfToken, editing: { client, etag: form.etag, file } }),
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
  const confirmation = (kind: 'secret' | 'delete') =>
    consolePage({
      path: `/clients/${kind}`,
      nav: 'clients',
      query: ClientQuery,
      render: async ({ query, view, t, base, csrfToken }) => {
        const { view: client, etag } = await changeable(deps, query.client_id);
        if (kind === 'secret' && client.source === 'registration')
          throw new AdminProblem(
            'conflict-registration',
            `client "${client.client_id}" is dynamically registered: it can only be deleted here`,
          );
        const p = t.console.clientPages;
        const paths = clientPaths(base);
        const [title, explanation, button] =
          kind === 'secret'
            ? [p.rotateTitle, p.rotateExplanation(clientNamed(client)), p.rotateButton]
            : [p.deleteTitle, p.deleteExplanation(clientNamed(client)), p.deleteButton];
        const action = kind === 'secret' ? paths.secret : paths.delete;
        return { title, body: confirmClientBody(view, { client, etag, action, explanation, button, file }, paths, csrfToken) };
      },
    });
  return [
    confirmation('secret'),
    consoleAction({
      path: '/clients/secret',
      returnTo: '/clients',
      form: ChangeForm,
      handle: async ({ form, view, base, actor }) => {
        await changeable(deps, form.client_id);
        const rotated = await api.rotateSecret(form.client_id, ifMatchOf(form.etag));
        audit(deps, actor, form.client_id, 'secret_rotated', rotated.fields);
        const secret = rotated.view.client_secret as string;
        const body = clientSecretBody(view, { clientId: form.client_id, secret, rotated: true }, clientPaths(base));
        return { title: view.t.console.clientPages.secretTitle, body, scripts: [COPY_SCRIPT_PATH] };
      },
    }),
    confirmation('delete'),
    consoleAction({
      path: '/clients/delete',
      returnTo: '/clients',
      form: ChangeForm,
      handle: async ({ form, actor }) => {
        await changeable(deps, form.client_id);
        await api.delete(form.client_id, ifMatchOf(form.etag));
        audit(deps, actor, form.client_id, 'deleted');
        return { redirect: '/clients', notice: 'client-deleted' };
      },
    }),
  ];
}

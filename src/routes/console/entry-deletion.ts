import { z } from 'zod';
import type { AdminEntity } from '../../admin/audit.js';
import type { IfMatch } from '../../admin/etags.js';
import type { EntriesApi, EntryView } from '../../admin/entries-api.js';
import type { SecurityEvents } from '../../events/types.js';
import { confirmDeletionBody } from '../../pages/console/confirm.js';
import type { Html } from '../../pages/html.js';
import type { ConsoleNavId, ConsoleNoticeId } from '../../pages/messages/index.js';
import { type ConsoleContent, type ConsoleContext, consoleAction, consolePage, type ConsoleRoute } from './declare.js';
import { EtagField, type FoundEntry, ifMatchOf } from './entry-forms.js';
import { auditChange } from './form-problems.js';

/**
 * The deletion of an entry: a confirmation naming it (GET `…/delete`), then the admin API's
 * delete and its audit event (POST), back to the list with a notice. An entry that has a file
 * and the store (an identity provider, a workload trust) is named by `id`, a file entry's own
 * page instead of a confirmation (it says it is read-only); an entry read with its ETag (a
 * client, a resource) by its own field, a file's refused (409) on both, and the confirmation
 * carries the ETag, so that only the version confirmed is deleted (If-Match).
 */

/** An entry's id, in a query or a form. */
export const EntryIdField = z.string().min(1).max(2048);
export const EntryId = z.object({ id: EntryIdField });

/** What every deletion names: where, what is deleted, who is told, and the notice back at the list. */
interface DeletionOf {
  /** The entity's path below the console's (`/providers`): the list, and `/delete` below it. */
  readonly path: string;
  readonly nav: ConsoleNavId;
  readonly entity: AdminEntity;
  readonly events: SecurityEvents;
  readonly notice: ConsoleNoticeId;
}

/** The confirmation (GET, `query`) and the deletion (POST, `form`: `remove` deletes and says the id it deleted). */
function deletion<Q extends z.ZodType, F extends z.ZodType>(
  o: DeletionOf & {
    readonly query: Q;
    readonly form: F;
    confirmation(context: ConsoleContext & { readonly query: z.output<Q> }): Promise<ConsoleContent>;
    remove(form: z.output<F>): Promise<string>;
  },
): ConsoleRoute[] {
  return [
    consolePage({ path: `${o.path}/delete`, nav: o.nav, query: o.query, render: (context) => o.confirmation(context) }),
    consoleAction({
      path: `${o.path}/delete`,
      returnTo: o.path,
      form: o.form,
      handle: async ({ form, actor }) => {
        const id = await o.remove(form);
        auditChange(o.events, actor, { entity: o.entity, id, action: 'deleted' });
        return { redirect: o.path, notice: o.notice };
      },
    }),
  ];
}

export interface EntryDeletion extends DeletionOf {
  readonly api: EntriesApi;
  /** What the entry is called on the page (its name, or its id). */
  nameOf(entry: EntryView, id: string): string;
  explanation(context: ConsoleContext, entry: EntryView, id: string): Html;
  /** The entry's own page (GET), where the confirmation's Cancel leads. */
  pageOf(context: ConsoleContext, id: string): Promise<ConsoleContent>;
  linkOf(base: string, id: string): string;
}

export function entryDeletion(o: EntryDeletion): ConsoleRoute[] {
  return deletion({
    ...o,
    query: EntryId,
    form: EntryId,
    confirmation: async (context) => {
      const { id } = context.query;
      const { view: entry } = await o.api.get(id);
      if (entry.source !== 'admin') return o.pageOf(context, id);
      const body = confirmDeletionBody(context.view, {
        explanation: o.explanation(context, entry, id),
        action: `${context.base}${o.path}/delete`,
        field: { name: 'id', value: id },
        cancel: o.linkOf(context.base, id),
        csrfToken: context.csrfToken,
      });
      return { title: context.t.console.identity.deleteTitle(o.nameOf(entry, id)), body };
    },
    remove: async ({ id }) => {
      await o.api.delete(id, undefined);
      return id;
    },
  });
}

export interface EtagDeletion<A extends FoundEntry> extends DeletionOf {
  /** The field that names the entry, in the confirmation's query and in its form (`client_id`). */
  readonly field: string;
  /** The entry as it is now, one of a file refused (`changeable` of entry-forms.ts). */
  changeable(id: string): Promise<A>;
  /** The page that asks: what goes, and the form that deletes it, with the field and the entry's ETag. */
  confirmation(context: ConsoleContext, found: A): ConsoleContent;
  delete(id: string, ifMatch: IfMatch): Promise<unknown>;
}

export function etagDeletion<A extends FoundEntry>(o: EtagDeletion<A>): ConsoleRoute[] {
  const query = z.object({ [o.field]: EntryIdField });
  // The schemas require both fields: a computed key only types them as maybe absent.
  const idOf = (sent: Readonly<Record<string, string | undefined>>) => sent[o.field] as string;
  return deletion({
    ...o,
    query,
    form: query.extend({ etag: EtagField }),
    confirmation: async (context) => o.confirmation(context, await o.changeable(idOf(context.query))),
    remove: async (form) => {
      const id = idOf(form);
      await o.changeable(id);
      await o.delete(id, ifMatchOf(form.etag as string));
      return id;
    },
  });
}

import { z } from 'zod';
import type { AdminEntity } from '../../admin/audit.js';
import type { EntriesApi, EntryView } from '../../admin/entries-api.js';
import type { SecurityEvents } from '../../events/types.js';
import { confirmDeletionBody } from '../../pages/console/confirm.js';
import type { Html } from '../../pages/html.js';
import type { ConsoleNavId, ConsoleNoticeId } from '../../pages/messages/index.js';
import { type ConsoleContent, type ConsoleContext, consoleAction, consolePage, type ConsoleRoute } from './declare.js';
import { auditChange } from './form-problems.js';

/**
 * The deletion of an entry that has a file and the store (an identity provider, a workload
 * trust): a confirmation naming it (GET `…/delete?id=`; a file entry's own page instead, which
 * says it is read-only), then the admin API's delete and its audit event (POST).
 */

export const EntryId = z.object({ id: z.string().min(1).max(2048) });

export interface EntryDeletion {
  /** The entity's path below the console's (`/providers`): the list, and `/delete` below it. */
  readonly path: string;
  readonly nav: ConsoleNavId;
  readonly entity: AdminEntity;
  readonly api: EntriesApi;
  readonly events: SecurityEvents;
  readonly notice: ConsoleNoticeId;
  /** What the entry is called on the page (its name, or its id). */
  nameOf(entry: EntryView, id: string): string;
  explanation(context: ConsoleContext, entry: EntryView, id: string): Html;
  /** The entry's own page (GET), where the confirmation's Cancel leads. */
  pageOf(context: ConsoleContext, id: string): Promise<ConsoleContent>;
  linkOf(base: string, id: string): string;
}

export function entryDeletion(o: EntryDeletion): ConsoleRoute[] {
  return [
    consolePage({
      path: `${o.path}/delete`,
      nav: o.nav,
      query: EntryId,
      render: async (context) => {
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
    }),
    consoleAction({
      path: `${o.path}/delete`,
      returnTo: o.path,
      form: EntryId,
      handle: async ({ form, actor }) => {
        await o.api.delete(form.id, undefined);
        auditChange(o.events, actor, { entity: o.entity, id: form.id, action: 'deleted' });
        return { redirect: o.path, notice: o.notice };
      },
    }),
  ];
}

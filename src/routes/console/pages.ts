import { z } from 'zod';
import { type AdminGrantsDependencies, type GrantFilter, listGrants, revokeGrant } from '../../admin/grants.js';
import { keyChains } from '../../admin/keys.js';
import { PAGE_LIMIT } from '../../admin/paging.js';
import { type Clock, nowSeconds } from '../../clock.js';
import type { TokenActivity } from '../../console/activity.js';
import { type OverviewDependencies, overviewCounts } from '../../console/overview.js';
import type { Keystore } from '../../keys/keystore.js';
import { grantsBody, grantsQuery, revokeGrantBody } from '../../pages/console/grants.js';
import { keysBody } from '../../pages/console/keys.js';
import { overviewBody } from '../../pages/console/overview.js';
import { html } from '../../pages/html.js';
import { clientPages } from './clients.js';
import { consoleAction, consolePage, type ConsoleRoute, formText } from './declare.js';
import type { ConsoleEntriesDependencies } from './entry-forms.js';
import { resourcePages } from './resources.js';

/**
 * The console's pages, each declared once (declare.ts) over the same services as the admin
 * API: the overview (counts and the last hour), grants (list, and revoke after a
 * confirmation: src/admin/grants.ts, the person as actor), signing keys (src/admin/keys.ts).
 */

export interface ConsolePagesDependencies {
  readonly overview: OverviewDependencies;
  readonly activity: Pick<TokenActivity, 'lastHour'>;
  readonly grants: AdminGrantsDependencies;
  readonly keystore: Pick<Keystore, 'keyTimes' | 'accessTokenAlgorithm'>;
  readonly clock: Clock;
  /** The clients and resources pages: the admin API's operations, audited with the person as actor. */
  readonly entries: ConsoleEntriesDependencies;
}

const GrantFilterQuery = z.object({ sub: formText, client_id: formText });
const filterOf = (query: z.output<typeof GrantFilterQuery>): GrantFilter => ({ sub: query.sub, clientId: query.client_id });
const hasOwner = (filter: GrantFilter) => filter.sub !== undefined || filter.clientId !== undefined;

export function overviewPage(deps: ConsolePagesDependencies): ConsoleRoute {
  return consolePage({
    path: '',
    nav: 'overview',
    render: async ({ t, view }) => ({
      title: t.console.nav.overview,
      body: overviewBody(view, { counts: await overviewCounts(deps.overview), activity: deps.activity.lastHour() }),
    }),
  });
}

export function grantPages(deps: ConsolePagesDependencies): ConsoleRoute[] {
  const paths = (base: string) => ({ list: `${base}/grants`, revoke: `${base}/grants/revoke` });
  return [
    consolePage({
      path: '/grants',
      nav: 'grants',
      query: GrantFilterQuery.extend({ cursor: z.string().max(1024).optional() }),
      render: async ({ query, view, t, base }) => {
        const filter = filterOf(query);
        const page = hasOwner(filter)
          ? await listGrants(filter, { limit: PAGE_LIMIT.default, cursor: query.cursor }, deps.grants)
          : undefined;
        return { title: t.console.nav.grants, body: grantsBody(view, filter, page, paths(base)) };
      },
    }),
    consolePage({
      path: '/grants/revoke',
      nav: 'grants',
      query: GrantFilterQuery.extend({ grant_id: z.string().min(1).max(512) }),
      render: async ({ query, view, t, base, csrfToken }) => {
        const filter = filterOf(query);
        const listed = hasOwner(filter) ? await listGrants(filter, { limit: PAGE_LIMIT.max }, deps.grants) : { items: [] };
        const grant = listed.items.find((item) => item.grant_id === query.grant_id);
        if (!grant) {
          const back = `${paths(base).list}${grantsQuery(filter)}`;
          const body = html`<p>${t.console.grantGone}</p><p><a href="${back}">${t.console.back}</a></p>`;
          return { title: t.console.revokeTitle, body, status: 404 };
        }
        return { title: t.console.revokeTitle, body: revokeGrantBody(view, grant, filter, paths(base), csrfToken) };
      },
    }),
    consoleAction({
      path: '/grants/revoke',
      returnTo: '/grants',
      form: GrantFilterQuery.extend({ grant_id: z.string().min(1).max(512) }),
      handle: async ({ form, actor }) => {
        await revokeGrant(form.grant_id, actor, deps.grants);
        return { redirect: `/grants${grantsQuery(filterOf(form))}`, notice: 'grant-revoked' };
      },
    }),
  ];
}

export function keysPage(deps: ConsolePagesDependencies): ConsoleRoute {
  return consolePage({
    path: '/keys',
    nav: 'keys',
    render: async ({ view, t }) => {
      const now = nowSeconds(deps.clock);
      return { title: t.console.nav.keys, body: keysBody(view, keyChains(deps.keystore, now), now) };
    },
  });
}

/** Every page of the console, in the order of the navigation; an entity's pages are one more entry. */
export function consolePages(deps: ConsolePagesDependencies): ConsoleRoute[] {
  return [
    overviewPage(deps),
    // The entries: clients and resources.
    ...clientPages(deps.entries),
    ...resourcePages(deps.entries),
    ...grantPages(deps),
    keysPage(deps),
  ];
}

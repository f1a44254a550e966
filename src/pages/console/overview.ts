import { type Html, html } from '../html.js';
import type { PageView } from '../view.js';
import { activityChart, type ChartSeries } from './chart.js';

/** The console's first page: the counts of what the server holds, and its token endpoint's last hour as charts. */

export interface OverviewContent {
  readonly counts: {
    readonly clients: { readonly file: number; readonly store: number; readonly builtIn: number; readonly registered: number };
    readonly users: { readonly file: number; readonly store: number; readonly federated: number };
    readonly providers: number;
    readonly activeGrants: number;
  };
  readonly activity: {
    readonly start: number;
    readonly issued: readonly ChartSeries[];
    readonly refused: readonly ChartSeries[];
  };
}

function stat(term: string, value: number, detail?: string): Html {
  return html`<div><dt>${term}</dt><dd>${String(value)}${detail === undefined ? html`` : html`<span>${detail}</span>`}</dd></div>`;
}

export function overviewBody(view: PageView, content: OverviewContent): Html {
  const t = view.t.console;
  const { clients, users, providers, activeGrants } = content.counts;
  const { activity } = content;
  return html`<section aria-labelledby="glance"><h2 id="glance">${t.atAGlance}</h2>
<dl class="stats">
${stat(t.clients, clients.file + clients.store + clients.builtIn + clients.registered, t.clientsBySource(clients))}
${stat(t.users, users.file + users.store + users.federated, t.usersBySource(users))}
${stat(t.providers, providers)}
${stat(t.activeGrants, activeGrants, t.activeGrantsNote)}
</dl></section>
<section aria-labelledby="last-hour"><h2 id="last-hour">${t.lastHour}</h2>
<p class="muted">${t.countedHere}</p>
<div class="charts">
${activityChart(view, { id: 'issued', title: t.issuedTitle, empty: t.issuedEmpty, start: activity.start, series: activity.issued })}
${activityChart(view, { id: 'refused', title: t.refusedTitle, empty: t.refusedEmpty, start: activity.start, series: activity.refused })}
</div></section>`;
}

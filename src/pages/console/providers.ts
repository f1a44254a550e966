import type { EntryView } from '../../admin/entries-api.js';
import type { Page as ListPage } from '../../admin/paging.js';
import type { DiscoveryStatus } from '../../console/discovery.js';
import { type Html, html } from '../html.js';
import type { PageView } from '../view.js';
import { momentOf } from './format.js';
import { scrollingTable } from './frame.js';
import { sourceOf } from './users.js';

/**
 * The console's identity providers: the list, each with the redirect URI to register at the
 * provider and whether its discovery answers; and one provider's facts above its form (or,
 * for an entry of IDENTITY_PROVIDERS_FILE, the note that it is read-only here).
 */

export interface ProvidersPaths {
  readonly list: string;
  /** The form of a new provider (`?type=oidc|github`). */
  readonly create: string;
  /** One provider's page (`?id=`; `check=now` checks its discovery again). */
  readonly provider: string;
  readonly edit: string;
  readonly delete: string;
}

/** A provider as listed: its entry, the URI to register, its discovery. */
export interface ListedProvider {
  readonly view: EntryView;
  readonly redirectUri: string;
  readonly discovery: DiscoveryStatus;
}

export const providerLink = (paths: ProvidersPaths, id: string, extra: Record<string, string> = {}) =>
  `${paths.provider}?${new URLSearchParams({ id, ...extra })}`;

export function discoveryText(view: PageView, status: DiscoveryStatus): Html {
  const t = view.t.console.identity;
  if (status.state === 'none') return html`<span class="muted">${t.discoveryNone}</span>`;
  if (status.state === 'answers') return html`${t.discoveryAnswers(momentOf(status.checkedAt, view.t.lang))}`;
  const lang = view.t.lang === 'en' ? html`` : html` lang="en"`;
  return html`<strong>${t.discoveryFails[status.failure]}</strong> <span class="muted"${lang}>(${status.detail})</span>`;
}

const typeOf = (view: PageView, entry: EntryView) =>
  entry.type === 'github' ? view.t.console.identity.types.github : view.t.console.identity.types.oidc;

function row(view: PageView, listed: ListedProvider, paths: ProvidersPaths, file: string): Html {
  const { view: entry } = listed;
  const id = String(entry.id);
  return html`<tr><td><a href="${providerLink(paths, id)}">${String(entry.name)}</a></td><td><code>${id}</code></td><td>${typeOf(view, entry)}</td>
<td>${sourceOf(view, entry, file)}</td><td><code>${listed.redirectUri}</code></td><td>${discoveryText(view, listed.discovery)}</td></tr>`;
}

export function providersBody(
  view: PageView,
  page: ListPage<ListedProvider>,
  paths: ProvidersPaths,
  file: string,
  nextHref?: string,
): Html {
  const t = view.t.console.identity;
  const head = html`<tr><th scope="col">${t.name}</th><th scope="col">${t.id}</th><th scope="col">${t.type}</th><th scope="col">${t.source}</th><th scope="col">${t.redirectUri}</th><th scope="col">${t.discovery}</th></tr>`;
  const table =
    page.items.length === 0
      ? html`<p class="muted">${t.noProviders}</p>`
      : scrollingTable(
          { id: 'providers-caption', text: html`${view.t.console.nav.providers}`, hidden: true },
          head,
          page.items.map((listed) => row(view, listed, paths, file)),
        );
  return html`<p class="muted">${t.providersIntro}</p>
<p class="links"><a class="button" href="${paths.create}?type=oidc">${t.newOidc}</a> <a class="button" href="${paths.create}?type=github">${t.newGithub}</a></p>
${table}
${nextHref === undefined ? html`` : html`<p class="pager"><a href="${nextHref}">${view.t.console.nextPage}</a></p>`}`;
}

/** One provider's facts: id, type, source, the redirect URI (in a read-only field, to copy), its discovery and a way to check it again. */
export function providerFacts(view: PageView, listed: ListedProvider, paths: ProvidersPaths, file: string): Html {
  const t = view.t.console.identity;
  const { view: entry } = listed;
  const id = String(entry.id);
  const check =
    listed.discovery.state === 'none'
      ? html``
      : html`<form class="inline" method="get" action="${paths.provider}"><input type="hidden" name="id" value="${id}"><input type="hidden" name="check" value="now"><button class="small" type="submit">${t.checkAgain}</button></form>`;
  return html`<dl><dt>${t.id}</dt><dd><code>${id}</code></dd><dt>${t.type}</dt><dd>${typeOf(view, entry)}</dd>
<dt>${t.source}</dt><dd>${sourceOf(view, entry, file)}</dd><dt>${t.discovery}</dt><dd>${discoveryText(view, listed.discovery)} ${check}</dd></dl>
<div class="field"><label for="redirect_uri">${t.redirectUri}</label><p class="muted hint" id="redirect_uri-hint">${t.redirectUriHint}</p>
<input id="redirect_uri" type="text" readonly value="${listed.redirectUri}" class="code-field" aria-describedby="redirect_uri-hint"></div>`;
}

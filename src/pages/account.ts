import type { Page as ListPage } from '../admin/paging.js';
import { type DescribedScope, scopeItems } from './consent.js';
import { CONSOLE_PAGE, csrfField, noticeOf } from './console/frame.js';
import { momentOf } from './console/format.js';
import { signedOutCard } from './console/notices.js';
import { type Html, html, type Page } from './html.js';
import type { PageView } from './view.js';

/** The account page (/account): who the person is, the apps they connected (each revocable), and "sign out everywhere". */

export interface AccountPerson {
  /** As the pages name them (the login and consent pages' "signed in as"). */
  readonly displayName: string;
  readonly sub: string;
  readonly name?: string | undefined;
  readonly email?: string | undefined;
  readonly emailVerified?: boolean | undefined;
  /** How this session signed in: with a password, or through a provider (its name); when (seconds). */
  readonly signedIn: { readonly provider?: string | undefined; readonly at: number };
}

/** A connected app as the page shows it: its scopes in words (as on the consent page), its resources by name. */
export interface AppView {
  readonly grantId: string;
  readonly name: string;
  readonly uri?: string | undefined;
  readonly scope: readonly DescribedScope[];
  readonly resources: readonly { readonly resource: string; readonly name: string | undefined }[];
  readonly grantedAt?: number | undefined;
  readonly lastUsedAt?: number | undefined;
}

export interface AccountContent {
  readonly person: AccountPerson;
  readonly apps: ListPage<AppView>;
  readonly csrfToken: string;
  readonly paths: { readonly self: string; readonly revoke: string; readonly everywhere: string };
  readonly notice?: string | undefined;
}

function whoSection(view: PageView, person: AccountPerson): Html {
  const t = view.t.account;
  const when = momentOf(person.signedIn.at, view.t.lang);
  const how = person.signedIn.provider === undefined ? t.withPassword(when) : t.throughProvider(person.signedIn.provider, when);
  const verified = person.emailVerified === false ? html` <span class="muted">${t.notVerified}</span>` : html``;
  return html`<section aria-labelledby="who"><h2 id="who">${t.who}</h2><dl>
${person.name === undefined ? html`` : html`<dt>${t.name}</dt><dd>${person.name}</dd>`}
${person.email === undefined ? html`` : html`<dt>${t.email}</dt><dd>${person.email}${verified}</dd>`}
<dt>${t.userId}</dt><dd><code>${person.sub}</code></dd>
<dt>${t.signedIn}</dt><dd>${how}</dd>
</dl></section>`;
}

function appItem(view: PageView, app: AppView, content: AccountContent): Html {
  const t = view.t.account;
  const lang = view.t.lang;
  const id = `app-${app.grantId.replace(/[^A-Za-z0-9_-]/g, '')}`;
  const resources = app.resources.map((r) =>
    r.name === undefined
      ? html`<li><code>${r.resource}</code></li>`
      : html`<li>${r.name} <span class="muted"><code>${r.resource}</code></span></li>`,
  );
  return html`<li><h3 id="${id}">${app.name}</h3>
${app.uri === undefined ? html`` : html`<p><a href="${app.uri}" rel="noreferrer">${app.uri}</a></p>`}
${app.scope.length === 0 ? html`<p class="muted">${t.noScope}</p>` : html`<p>${t.canDo}</p><ul>${scopeItems(app.scope)}</ul>`}
${app.resources.length === 0 ? html`` : html`<p>${t.atServices}</p><ul class="resources">${resources}</ul>`}
<dl class="muted"><dt>${t.connected}</dt><dd>${app.grantedAt === undefined ? t.notKnown : momentOf(app.grantedAt, lang)}</dd><dt>${t.lastUsed}</dt><dd>${app.lastUsedAt === undefined ? t.notKnown : momentOf(app.lastUsedAt, lang)}</dd></dl>
<form method="post" action="${content.paths.revoke}">
${csrfField(content.csrfToken)}
<input type="hidden" name="grant_id" value="${app.grantId}">
<button class="small danger" type="submit">${t.revoke}<span class="visually-hidden"> ${app.name}</span></button>
</form></li>`;
}

function appsSection(view: PageView, content: AccountContent): Html {
  const t = view.t.account;
  const { apps } = content;
  const next =
    apps.next === undefined
      ? html``
      : html`<p class="pager"><a href="${content.paths.self}?cursor=${apps.next}">${view.t.console.nextPage}</a></p>`;
  const list =
    apps.items.length === 0
      ? html`<p class="muted">${t.noApps}</p>`
      : html`<ul class="apps">${apps.items.map((app) => appItem(view, app, content))}</ul>`;
  return html`<section aria-labelledby="apps"><h2 id="apps">${t.appsTitle}</h2>
<p class="muted">${t.appsIntro}</p>
${list}${next}</section>`;
}

function everywhereSection(view: PageView, content: AccountContent): Html {
  const t = view.t.account;
  return html`<section aria-labelledby="everywhere"><h2 id="everywhere">${t.everywhereTitle}</h2>
<p class="muted">${t.everywhereExplanation}</p>
<form method="post" action="${content.paths.everywhere}">
${csrfField(content.csrfToken)}
<div class="actions"><button class="danger" type="submit">${t.everywhereButton}</button></div>
</form></section>`;
}

export function accountPage(view: PageView, content: AccountContent): Page {
  const t = view.t.account;
  return view.render(
    t.title,
    html`<h1>${t.title}</h1>
${noticeOf(content.notice)}<p class="muted">${view.t.signedInAs(html`<strong>${content.person.displayName}</strong>`)}</p>
${whoSection(view, content.person)}
${appsSection(view, content)}
${everywhereSection(view, content)}`,
    CONSOLE_PAGE,
  );
}

export function signedOutEverywherePage(view: PageView, signIn: string): Page {
  const t = view.t.account;
  return signedOutCard(view, { title: t.signedOutTitle, explanation: t.signedOutExplanation, signIn: t.signIn }, signIn);
}

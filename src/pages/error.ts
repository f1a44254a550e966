import { type Html, html, type Page } from './html.js';
import type { ErrorKind } from './messages/index.js';
import type { PageView } from './view.js';

/** What an error page says: never internal detail, only what the user and support can act on. */
export interface ErrorPageContent {
  readonly kind: ErrorKind;
  /** The error code (RFC 6749 `error`, or `not_found`…), for support. */
  readonly error: string;
  /** The OAuth error_description (ours, in English), when it helps the user; never an exception's message. */
  readonly description?: string | undefined;
  /** The request id (X-Request-Id): what support finds in the logs. */
  readonly reference: string;
  /** The client's home page (client_uri), when it is known and safe to link. */
  readonly home?: { readonly name: string; readonly uri: string } | undefined;
}

function wayBack(view: PageView, home: ErrorPageContent['home']): Html {
  return home === undefined
    ? html`<p>${view.t.closeWindow}</p>`
    : html`<p><a href="${home.uri}" rel="noreferrer">${view.t.backTo(html`${home.name}`)}</a></p>`;
}

export function errorPage(view: PageView, content: ErrorPageContent): Page {
  const { t } = view;
  const title = t.errorTitles[content.kind];
  // The description is written in English: marked so, for screen readers and translators.
  const lang = t.lang === 'en' ? html`` : html` lang="en"`;
  return view.render(
    title,
    html`<h1>${title}</h1>
<p>${t.errorExplanations[content.kind]}</p>
${content.description === undefined ? html`` : html`<p class="error" role="alert"${lang}>${content.description}</p>`}
<dl class="muted"><dt>${t.errorCode}</dt><dd><code>${content.error}</code></dd><dt>${t.reference}</dt><dd><code>${content.reference}</code></dd></dl>
${wayBack(view, content.home)}`,
  );
}

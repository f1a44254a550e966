import { type Html, html, type Page } from '../html.js';
import type { PageExtras } from '../layout.js';
import type { ConsoleNavId } from '../messages/index.js';
import type { PageView } from '../view.js';
import { CONSOLE_NAV } from './nav.js';

/**
 * The frame of every console page: the navigation (CONSOLE_NAV, the current page marked for
 * assistive technology with aria-current), who is signed in and the sign-out form, the page's
 * heading and a notice after a change. Wide, and with the referrer policy whose POSTs carry
 * their Origin (the console refuses a change from any other).
 */

export interface ConsoleFrame {
  /** The console's path (`/admin` below the issuer's). */
  readonly base: string;
  /** The page of the navigation shown, if it is one. */
  readonly current?: ConsoleNavId | undefined;
  /** Who is signed in, as the pages name people. */
  readonly who: string;
  readonly csrfToken: string;
  readonly accountPath: string;
  /** What a change just did (already in the view's language). */
  readonly notice?: string | undefined;
}

/** The extras of every page of the console and of /account. */
export const CONSOLE_PAGE: PageExtras = { wide: true, referrerPolicy: 'same-origin' };

export function csrfField(token: string): Html {
  return html`<input type="hidden" name="csrf_token" value="${token}">`;
}

/**
 * A table that may be wider than a phone's screen: it scrolls sideways in a region that is a
 * tab stop with a name (WCAG 2.1.1: a scrollable region a keyboard can reach and scroll).
 */
export function scrollingTable(
  caption: { readonly id: string; readonly text: Html; readonly hidden?: boolean },
  head: Html,
  rows: readonly Html[],
): Html {
  return html`<div class="table" role="region" aria-labelledby="${caption.id}" tabindex="0"><table>
<caption id="${caption.id}"${caption.hidden ? html` class="visually-hidden"` : html``}>${caption.text}</caption>
<thead>${head}</thead>
<tbody>${rows}</tbody>
</table></div>`;
}

function navigation(view: PageView, frame: ConsoleFrame): Html {
  const links = CONSOLE_NAV.map(({ id, path }) => {
    const current = id === frame.current ? html` aria-current="page"` : html``;
    return html`<li><a href="${frame.base}${path}"${current}>${view.t.console.nav[id]}</a></li>`;
  });
  return html`<nav aria-label="${view.t.console.navLabel}"><ul class="nav">${links}</ul></nav>`;
}

/** Who is signed in, a link to their account page, and the console's sign-out (a POST with the CSRF token). */
export function signedInLine(view: PageView, frame: ConsoleFrame): Html {
  const { t } = view;
  return html`<form method="post" action="${frame.base}/sign-out">
${csrfField(frame.csrfToken)}
<p class="muted">${t.signedInAs(html`<strong>${frame.who}</strong>`)} <a href="${frame.accountPath}">${t.console.yourAccount}</a> · <button class="link" type="submit">${t.console.signOut}</button></p>
</form>`;
}

export function noticeOf(notice: string | undefined): Html {
  return notice === undefined ? html`` : html`<p class="notice" role="status">${notice}</p>\n`;
}

export function consolePage(view: PageView, frame: ConsoleFrame, title: string, body: Html, extras: PageExtras = {}): Page {
  return view.render(
    `${title} – ${view.t.console.name}`,
    html`<div class="console-bar">${navigation(view, frame)}
${signedInLine(view, frame)}</div>
<h1>${title}</h1>
${noticeOf(frame.notice)}${body}`,
    { ...CONSOLE_PAGE, ...extras },
  );
}

import { type Html, html, type Page } from './html.js';
import type { PageView } from './view.js';

/** The pages of /oauth2/logout. Every value is escaped by the `html` template. */

export interface LogoutForm {
  readonly action: string;
  /** The signed sign-out request the form carries. */
  readonly logout: string;
  readonly csrfToken: string;
  readonly subject: string;
  /** The client that sent the user here, if it said so. */
  readonly clientName: string | undefined;
}

/** The confirmation: signing out is a POST of this form, never a GET another site could trigger. */
export function logoutPage(view: PageView, form: LogoutForm): Page {
  const { t } = view;
  const client: Html =
    form.clientName !== undefined ? html`<p>${t.asksYouToSignOut(html`<strong>${form.clientName}</strong>`)}</p>` : html``;
  return view.render(
    t.signOutTitle,
    html`<h1>${t.signOutTitle}</h1>
${client}
<p class="muted">${t.signedInAs(html`<strong>${form.subject}</strong>`)}</p>
<form method="post" action="${form.action}">
<input type="hidden" name="logout" value="${form.logout}">
<input type="hidden" name="csrf_token" value="${form.csrfToken}">
<div class="actions"><button class="primary" type="submit">${t.signOutButton}</button></div>
</form>`,
  );
}

export function signedOutPage(view: PageView): Page {
  const { t } = view;
  return view.render(
    t.signedOutTitle,
    html`<h1>${t.signedOutTitle}</h1>
<p class="muted">${t.signedOutExplanation}</p>`,
  );
}

import type { RedirectTarget, UnregisteredClient } from './client-display.js';
import { type Html, html } from './html.js';
import type { PageView } from './view.js';

/** What the login and consent forms carry and show. Every value is escaped by the `html` template. */
export interface FormContext {
  /** Where the form posts. */
  readonly action: string;
  /** The signed authorization request the form carries. */
  readonly interaction: string;
  readonly csrfToken: string;
  /** The client's display name. */
  readonly clientName: string;
  /** The client's logo (logo_uri), when it has one we may show. */
  readonly logoUri?: string | undefined;
  /** Where the answer goes (the redirect URI of this request); none for a device (RFC 8628), which polls. */
  readonly redirect?: RedirectTarget | undefined;
  /** A device verification (RFC 8628): the user code its device shows. */
  readonly device?: { readonly userCode: string } | undefined;
  /** Where the "not you?" form posts (sign out, then back to this request). */
  readonly signOutAction: string;
  /** Set for a client nobody registered: described by a Client ID Metadata Document, or registered by itself (RFC 7591). */
  readonly unregistered?: UnregisteredClient | undefined;
  /** The account page (/account): the user's connected apps, each revocable. */
  readonly accountPath?: string | undefined;
}

export function hiddenFields(form: FormContext): Html {
  return html`<input type="hidden" name="interaction" value="${form.interaction}">
<input type="hidden" name="csrf_token" value="${form.csrfToken}">`;
}

/** A line about the client, with its logo beside it when it has one (decorative: its name is in the line). */
export function clientLine(form: FormContext, line: Html): Html {
  if (form.logoUri === undefined) return line;
  return html`<div class="client"><img src="${form.logoUri}" alt="" width="48" height="48">${line}</div>`;
}

/**
 * Who is signed in, and a way out: "Not you?" signs out (a POST with the CSRF token, never
 * a link a third party could make the browser follow) and comes back to this request.
 */
export function signedInAs(view: PageView, form: FormContext, subject: string): Html {
  return html`<form class="signed-in" method="post" action="${form.signOutAction}">
${hiddenFields(form)}
<p class="muted">${view.t.signedInAs(html`<strong>${subject}</strong>`)} <button class="link" type="submit">${view.t.notYou}</button></p>
</form>`;
}

/** The way to the account page, where the user sees and revokes the apps they connected. */
export function accountLine(view: PageView, form: FormContext): Html {
  if (form.accountPath === undefined) return html``;
  return html`<p class="muted"><a href="${form.accountPath}">${view.t.account.manageLink}</a></p>`;
}

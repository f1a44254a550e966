import { type Html, html, page } from './html.js';

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
export function logoutPage(form: LogoutForm): Html {
  return page(
    'Sign out?',
    html`<h1>Sign out?</h1>
${form.clientName !== undefined ? html`<p><strong>${form.clientName}</strong> asks you to sign out.</p>` : html``}
<p class="muted">Signed in as <strong>${form.subject}</strong>.</p>
<form method="post" action="${form.action}">
<input type="hidden" name="logout" value="${form.logout}">
<input type="hidden" name="csrf_token" value="${form.csrfToken}">
<div class="actions"><button class="primary" type="submit">Sign out</button></div>
</form>`,
  );
}

export function signedOutPage(): Html {
  return page(
    'Signed out',
    html`<h1>You are signed out</h1>
<p class="muted">You can close this window.</p>`,
  );
}

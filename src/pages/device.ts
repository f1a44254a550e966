import { type Html, html, type Page } from './html.js';
import type { PageView } from './view.js';

/** The pages of /device, the device flow's verification URI (RFC 8628 §3.3). Every value is escaped by the `html` template. */

export interface DeviceCodeForm {
  readonly action: string;
  readonly csrfToken: string;
  /** The code filled in: from verification_uri_complete, or as the user typed it when the form comes back. */
  readonly userCode?: string | undefined;
  /** Why the form came back, already in the view's language. */
  readonly message?: string | undefined;
}

/** The form to type the code, or to confirm the one verification_uri_complete filled in (§3.3.1). */
export function deviceCodePage(view: PageView, form: DeviceCodeForm): Page {
  const { t } = view;
  const filled = form.userCode !== undefined && form.userCode !== '';
  const intro: Html = filled && form.message === undefined ? html`<p>${t.deviceConfirm}</p>` : html`<p class="muted">${t.deviceIntro}</p>`;
  return view.render(
    t.deviceTitle,
    html`<h1>${t.deviceTitle}</h1>
${intro}
${form.message ? html`<p class="error" role="alert">${form.message}</p>` : html``}
<form method="post" action="${form.action}">
<input type="hidden" name="csrf_token" value="${form.csrfToken}">
<label for="user_code">${t.userCode}</label>
<input id="user_code" name="user_code" type="text" class="code" autocomplete="off" autocapitalize="characters" spellcheck="false" required value="${form.userCode ?? ''}"${filled ? html`` : html` autofocus`}>
<div class="actions"><button class="primary" type="submit"${filled ? html` autofocus` : html``}>${t.continueButton}</button></div>
</form>`,
  );
}

/** After the user's decision: back to the device, which polls by itself. */
export function deviceDecidedPage(view: PageView, approved: boolean, clientName: string): Page {
  const { t } = view;
  const title = approved ? t.deviceApprovedTitle : t.deviceDeniedTitle;
  const explanation = approved ? t.deviceApprovedExplanation(html`<strong>${clientName}</strong>`) : html`${t.deviceDeniedExplanation}`;
  return view.render(
    title,
    html`<h1>${title}</h1>
<p>${explanation}</p>`,
  );
}

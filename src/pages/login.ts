import type { FormContext } from './form-context.js';
import { clientLine, hiddenFields, signedInAs } from './form-context.js';
import { type Html, html, type Page, scriptHash } from './html.js';
import type { PageView } from './view.js';

/**
 * "Show password": a checkbox that exists only when scripts run (without them the field
 * stays a plain password field). The script is constant, so the CSP allows it by hash.
 */
const SHOW_PASSWORD = `const reveal=document.getElementById('reveal-password');const password=document.getElementById('password');reveal.hidden=false;reveal.querySelector('input').addEventListener('change',(event)=>{password.type=event.target.checked?'text':'password';});`;
const SHOW_PASSWORD_SCRIPT = { source: SHOW_PASSWORD, hash: scriptHash(SHOW_PASSWORD) };

function loginMark(view: PageView, form: FormContext): Html {
  const client = form.unregistered;
  if (!client) return html``;
  return html`${client.clientIdHost === undefined ? view.t.selfRegisteredMark : view.t.documentMark(client.clientIdHost)}`;
}

/**
 * The login page; `message` (already in the view's language) says why the form came back;
 * `signedIn`: the subject of a session that must sign in again (prompt=login, max_age).
 */
export function loginPage(view: PageView, form: FormContext, message?: string, username = '', signedIn?: string): Page {
  const { t } = view;
  // The first empty field gets the focus: the username, or the password when the form came back.
  const focusUsername = username === '' ? html` autofocus` : html``;
  const focusPassword = username === '' ? html`` : html` autofocus`;
  return view.render(
    t.signInTitle,
    html`<h1>${t.signInTitle}</h1>
${clientLine(form, html`<p class="muted">${t.toContinueTo(html`<strong>${form.clientName}</strong>`, loginMark(view, form))}</p>`)}
${signedIn !== undefined ? html`<p>${t.signInAgain}</p>` : html``}
${message ? html`<p class="error" role="alert">${message}</p>` : html``}
<form method="post" action="${form.action}">
${hiddenFields(form)}
<label for="username">${t.username}</label>
<input id="username" name="username" type="text" autocomplete="username" autocapitalize="none" spellcheck="false" required value="${username}"${focusUsername}>
<label for="password">${t.password}</label>
<input id="password" name="password" type="password" autocomplete="current-password" required${focusPassword}>
<div class="reveal" id="reveal-password" hidden><input type="checkbox" id="show-password"><label for="show-password">${t.showPassword}</label></div>
<div class="actions"><button class="primary" type="submit">${t.signInButton}</button></div>
</form>
${signedIn !== undefined ? signedInAs(view, form, signedIn) : html``}`,
    { images: form.logoUri === undefined ? [] : [form.logoUri], scripts: [SHOW_PASSWORD_SCRIPT] },
  );
}

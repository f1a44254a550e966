import type { SignInMethod } from '../authorize/sign-in.js';
import type { FormContext } from './form-context.js';
import { accountLine, clientLine, hiddenFields, signedInAs } from './form-context.js';
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

function passwordForm(view: PageView, form: FormContext, username: string): Html {
  const { t } = view;
  // The first empty field gets the focus: the username, or the password when the form came back.
  const focusUsername = username === '' ? html` autofocus` : html``;
  const focusPassword = username === '' ? html`` : html` autofocus`;
  return html`<form method="post" action="${form.action}">
${hiddenFields(form)}
<label for="username">${t.username}</label>
<input id="username" name="username" type="text" autocomplete="username" autocapitalize="none" spellcheck="false" required value="${username}"${focusUsername}>
<label for="password">${t.password}</label>
<input id="password" name="password" type="password" autocomplete="current-password" required${focusPassword}>
<div class="reveal" id="reveal-password" hidden><input type="checkbox" id="show-password"><label for="show-password">${t.showPassword}</label></div>
<div class="actions"><button class="primary" type="submit">${t.signInButton}</button></div>
</form>`;
}

/** One "Continue with {name}" button per identity provider, in one form that names the provider pressed. */
function providerButtons(
  view: PageView,
  form: FormContext,
  providers: readonly { id: string; name: string }[],
  upstreamAction: string,
): Html {
  return html`<form class="providers" method="post" action="${upstreamAction}">
${hiddenFields(form)}
${providers.map((p) => html`<button type="submit" name="provider" value="${p.id}">${view.t.continueWith(p.name)}</button>`)}
</form>`;
}

/** What the login page offers, and what it says. */
export interface LoginPageContent {
  readonly methods: readonly SignInMethod[];
  /** Where the provider buttons post. */
  readonly upstreamAction: string;
  /** Why the form came back, already in the view's language. */
  readonly message?: string | undefined;
  /** What the user typed as username (or login_hint). */
  readonly username?: string | undefined;
  /** The subject of a session that must sign in again (prompt=login, max_age). */
  readonly signedIn?: string | undefined;
}

/** The login page: the password form when local users may sign in, and a button per upstream identity provider. */
export function loginPage(view: PageView, form: FormContext, content: LoginPageContent): Page {
  const { t } = view;
  const { signedIn, message } = content;
  const password = content.methods.some((m) => m.kind === 'password');
  const providers = content.methods.flatMap((m) => (m.kind === 'upstream' ? [m] : []));
  return view.render(
    t.signInTitle,
    html`<h1>${t.signInTitle}</h1>
${clientLine(form, html`<p class="muted">${t.toContinueTo(html`<strong>${form.clientName}</strong>`, loginMark(view, form))}</p>`)}
${signedIn !== undefined ? html`<p>${t.signInAgain}</p>` : html``}
${message ? html`<p class="error" role="alert">${message}</p>` : html``}
${password ? passwordForm(view, form, content.username ?? '') : html``}
${password && providers.length > 0 ? html`<p class="or">${t.or}</p>` : html``}
${providers.length > 0 ? providerButtons(view, form, providers, content.upstreamAction) : html``}
${signedIn !== undefined ? signedInAs(view, form, signedIn) : html``}
${accountLine(view, form)}`,
    { images: form.logoUri === undefined ? [] : [form.logoUri], scripts: password ? [SHOW_PASSWORD_SCRIPT] : [] },
  );
}

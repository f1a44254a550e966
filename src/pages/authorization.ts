import { type Html, html, page, scriptHash } from './html.js';

/** The pages of the authorization endpoint. Every value is escaped by the `html` template. */

export interface FormContext {
  /** Where the form posts. */
  readonly action: string;
  /** The signed authorization request the form carries. */
  readonly interaction: string;
  readonly csrfToken: string;
  /** The client's display name. */
  readonly clientName: string;
  /** Where the "not you?" form posts (sign out, then back to this request). */
  readonly signOutAction: string;
  /** Set for a client nobody registered: described by a Client ID Metadata Document, or registered by itself (RFC 7591). */
  readonly unregistered?: UnregisteredClient | undefined;
}

/** What the user is shown about a client nobody registered. */
export interface UnregisteredClient {
  /** The host serving the client's metadata document (its client_id); undefined: the client registered itself (RFC 7591). */
  readonly clientIdHost: string | undefined;
  /** Where the answer goes: the host of the redirect URI of this request. */
  readonly redirectHost: string;
  /** The redirect URI is on this computer (loopback): any local program could be listening there. */
  readonly loopback: boolean;
}

const LOOPBACK_HOST = /^(?:127(?:\.\d{1,3}){3}|\[::1\]|localhost|.+\.localhost)$/i;

/** The host part a user can check: the URL's host (IDN in punycode, so look-alikes show), or the scheme of a private-use URI. */
function shownHost(uri: string): { host: string; loopback: boolean } {
  const url = new URL(uri);
  return url.host !== '' ? { host: url.host, loopback: LOOPBACK_HOST.test(url.hostname) } : { host: url.protocol, loopback: false };
}

/** A client described by its metadata document (`clientId` is its URL), or, without `clientId`, one that registered itself. */
export function unregisteredClient(clientId: string | undefined, redirectUri: string): UnregisteredClient {
  const redirect = shownHost(redirectUri);
  return {
    clientIdHost: clientId === undefined ? undefined : shownHost(clientId).host,
    redirectHost: redirect.host,
    loopback: redirect.loopback,
  };
}

/**
 * CIMD §8.5: the server "SHOULD display the hostname of the client_id"; the MCP
 * authorization spec (security considerations): "Authorization servers MUST clearly
 * display the redirect URI hostname during authorization" and "SHOULD display additional
 * warnings for localhost-only redirect URIs". The name comes from the document or the
 * registration: the client's own claim, so it is marked as such.
 */
function unregisteredNotice(client: UnregisteredClient): Html {
  const origin =
    client.clientIdHost === undefined
      ? html`This application registered itself with this server`
      : html`This application describes itself at <strong>${client.clientIdHost}</strong>`;
  return html`<p class="notice"><strong>Not pre-registered.</strong> ${origin}; the operator of this server has not reviewed it, and its name is its own claim.</p>
<p>If you allow, you go back to <strong class="host">${client.redirectHost}</strong></p>
${client.loopback ? html`<p class="error">That address is on this computer: any program running here could receive the access. Allow only if you started this application yourself just now.</p>` : html``}`;
}

function loginMark(client: UnregisteredClient | undefined): Html {
  if (!client) return html``;
  return client.clientIdHost === undefined
    ? html` (not pre-registered: it registered itself)`
    : html` (not pre-registered, from ${client.clientIdHost})`;
}

function hiddenFields(form: FormContext): Html {
  return html`<input type="hidden" name="interaction" value="${form.interaction}">
<input type="hidden" name="csrf_token" value="${form.csrfToken}">`;
}

/**
 * Who is signed in, and a way out: "Not you?" signs out (a POST with the CSRF token, never
 * a link a third party could make the browser follow) and comes back to this request.
 */
function signedInAs(form: FormContext, subject: string): Html {
  return html`<form class="signed-in" method="post" action="${form.signOutAction}">
${hiddenFields(form)}
<p class="muted">Signed in as <strong>${subject}</strong>. <button class="link" type="submit">Not you?</button></p>
</form>`;
}

/** `signedIn`: the user has a session but must sign in again (prompt=login, max_age). */
export function loginPage(form: FormContext, message?: string, username = '', signedIn?: string): Html {
  return page(
    'Sign in',
    html`<h1>Sign in</h1>
<p class="muted">to continue to <strong>${form.clientName}</strong>${loginMark(form.unregistered)}</p>
${signedIn !== undefined ? html`<p>This application asks you to sign in again.</p>` : html``}
${message ? html`<p class="error" role="alert">${message}</p>` : html``}
<form method="post" action="${form.action}">
${hiddenFields(form)}
<label for="username">Username</label>
<input id="username" name="username" type="text" autocomplete="username" autocapitalize="none" spellcheck="false" required value="${username}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<div class="actions"><button class="primary" type="submit">Sign in</button></div>
</form>
${signedIn !== undefined ? signedInAs(form, signedIn) : html``}`,
  );
}

/** What the consent page asks for: the resources (RFC 8707) and the scope. */
export interface RequestedAccess {
  readonly resources: readonly { readonly resource: string; readonly name: string | undefined }[];
  readonly scope: readonly string[];
}

function resourceList(resources: RequestedAccess['resources']): Html {
  if (resources.length === 0) return html``;
  const items = resources.map((r) =>
    r.name === undefined
      ? html`<li><code>${r.resource}</code></li>`
      : html`<li><strong>${r.name}</strong> <span class="muted"><code>${r.resource}</code></span></li>`,
  );
  return html`<p>at ${resources.length === 1 ? 'this service' : 'these services'}:</p>
<ul class="resources">${items}</ul>`;
}

const NO_SCOPE = 'No specific permissions: it only learns that you signed in.';
const NO_SCOPE_AT_RESOURCES = 'No specific permissions: these services decide what it may do as you.';

export function consentPage(form: FormContext, access: RequestedAccess, subject: string): Html {
  const list = access.scope.length
    ? html`<p>with these permissions:</p>
<ul>${access.scope.map((s) => html`<li><code>${s}</code></li>`)}</ul>`
    : html`<p class="muted">${access.resources.length ? NO_SCOPE_AT_RESOURCES : NO_SCOPE}</p>`;
  return page(
    'Allow access?',
    html`<h1>Allow access?</h1>
<p><strong>${form.clientName}</strong> asks for access to your account</p>
${form.unregistered ? unregisteredNotice(form.unregistered) : html``}
${resourceList(access.resources)}
${list}
<form method="post" action="${form.action}">
${hiddenFields(form)}
<div class="actions">
<button type="submit" name="decision" value="deny">Deny</button>
<button class="primary" type="submit" name="decision" value="allow">Allow</button>
</div>
</form>
${signedInAs(form, subject)}`,
  );
}

export function errorPage(title: string, description: string): Html {
  return page(
    title,
    html`<h1>${title}</h1>
<p class="error" role="alert">${description}</p>
<p class="muted">The application that sent you here made an invalid request. You were not redirected back to it, for your safety.</p>`,
  );
}

const AUTO_SUBMIT = 'document.forms[0].submit()';
export const FORM_POST_SCRIPT_HASH = scriptHash(AUTO_SUBMIT);

/** OAuth 2.0 Form Post Response Mode §2: an auto-submitting form to the redirect URI. */
export function formPostPage(redirectUri: string, params: ReadonlyArray<readonly [string, string]>): Html {
  return page(
    'Continue',
    html`<h1>Continue</h1>
<form method="post" action="${redirectUri}">
${params.map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}
<noscript><p>JavaScript is off: continue by pressing the button.</p></noscript>
<div class="actions"><button class="primary" type="submit">Continue</button></div>
</form>
<script>${{ html: AUTO_SUBMIT }}</script>`,
  );
}

import type { UnregisteredClient } from './client-display.js';
import { accountLine, clientLine, type FormContext, hiddenFields, signedInAs } from './form-context.js';
import { type Html, html, type Page } from './html.js';
import type { PageView } from './view.js';

/** A scope as the page names it: its description, if the operator (or OpenID Connect) wrote one. */
export interface DescribedScope {
  readonly scope: string;
  readonly description: string | undefined;
}

/**
 * What the consent page asks for: the resources (RFC 8707) and the scope; in a step-up, the
 * scope is what is new and `shared` what the user approved before (the client keeps it).
 */
export interface RequestedAccess {
  readonly resources: readonly { readonly resource: string; readonly name: string | undefined }[];
  readonly scope: readonly DescribedScope[];
  readonly shared: readonly DescribedScope[];
}

/**
 * CIMD §8.5: the server "SHOULD display the hostname of the client_id". The name comes
 * from the document or the registration: the client's own claim, so it is marked as such.
 */
function unregisteredNotice(view: PageView, client: UnregisteredClient): Html {
  const { t } = view;
  const origin =
    client.clientIdHost === undefined ? html`${t.registeredItself}` : t.describesItselfAt(html`<strong>${client.clientIdHost}</strong>`);
  return html`<p class="notice"><strong>${t.notPreRegistered}</strong> ${origin}${t.notReviewed}</p>\n`;
}

/**
 * The MCP authorization spec (security considerations): "Authorization servers MUST
 * clearly display the redirect URI hostname during authorization" and "SHOULD display
 * additional warnings for localhost-only redirect URIs". Shown for every client.
 */
function redirectNotice(view: PageView, form: FormContext): Html {
  const { t } = view;
  if (form.redirect === undefined) return html``;
  return html`<p>${t.goBackTo(html`<strong class="host">${form.redirect.host}</strong>`)}</p>
${form.redirect.loopback ? html`<p class="error">${t.loopbackWarning}</p>` : html``}`;
}

/**
 * RFC 8628 §5.4 (remote phishing): an attacker starts a device flow and sends the code to a
 * victim, who approves the attacker's device. The page names the code the device shows and
 * says plainly when not to continue.
 */
function deviceNotice(view: PageView, device: { readonly userCode: string }): Html {
  const { t } = view;
  return html`<p>${t.deviceCodeShown(html`<strong class="host"><code>${device.userCode}</code></strong>`)}</p>
<p class="error">${t.deviceWarning}</p>`;
}

function askingLine(view: PageView, form: FormContext, access: RequestedAccess): Html {
  const { t } = view;
  const client = html`<strong>${form.clientName}</strong>`;
  if (form.device) return html`<p>${t.deviceAsksForAccess(client)}</p>`;
  return html`<p>${(access.shared.length > 0 ? t.asksForMoreAccess : t.asksForAccess)(client)}</p>`;
}

function resourceList(view: PageView, resources: RequestedAccess['resources']): Html {
  if (resources.length === 0) return html``;
  const items = resources.map((r) =>
    r.name === undefined
      ? html`<li><code>${r.resource}</code></li>`
      : html`<li><strong>${r.name}</strong> <span class="muted"><code>${r.resource}</code></span></li>`,
  );
  return html`<p>${resources.length === 1 ? view.t.atThisService : view.t.atTheseServices}</p>
<ul class="resources">${items}</ul>`;
}

/** Each scope in words (its description, the scope itself beside it), or its name alone: the consent page's and the account page's. */
export function scopeItems(scopes: readonly DescribedScope[]): Html[] {
  return scopes.map(({ scope, description }) =>
    description === undefined
      ? html`<li><code>${scope}</code></li>`
      : html`<li><strong>${description}</strong> <span class="muted"><code>${scope}</code></span></li>`,
  );
}

function scopeList(view: PageView, access: RequestedAccess): Html {
  const { t } = view;
  if (access.scope.length === 0) return html`<p class="muted">${access.resources.length ? t.noScopeAtResources : t.noScope}</p>`;
  return html`<p>${access.shared.length > 0 ? t.withTheseNewPermissions : t.withThesePermissions}</p>
<ul>${scopeItems(access.scope)}</ul>`;
}

/** A step-up: what the user approved before, which the client keeps. */
function sharedList(view: PageView, form: FormContext, access: RequestedAccess): Html {
  if (access.shared.length === 0) return html``;
  return html`<p class="muted">${view.t.alreadyShared(html`<strong>${form.clientName}</strong>`)}</p>
<ul class="shared muted">${scopeItems(access.shared)}</ul>
`;
}

export function consentPage(view: PageView, form: FormContext, access: RequestedAccess, subject: string): Page {
  const { t } = view;
  return view.render(
    t.consentTitle,
    html`<h1>${t.consentTitle}</h1>
${clientLine(form, askingLine(view, form, access))}
${form.unregistered ? unregisteredNotice(view, form.unregistered) : html``}${form.device ? deviceNotice(view, form.device) : redirectNotice(view, form)}
${resourceList(view, access.resources)}
${scopeList(view, access)}
${sharedList(view, form, access)}<form method="post" action="${form.action}">
${hiddenFields(form)}
<div class="actions">
<button type="submit" name="decision" value="deny">${t.deny}</button>
<button class="primary" type="submit" name="decision" value="allow">${t.allow}</button>
</div>
</form>
${signedInAs(view, form, subject)}
${accountLine(view, form)}`,
    { images: form.logoUri === undefined ? [] : [form.logoUri] },
  );
}

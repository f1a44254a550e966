import { html, type Page, scriptHash } from './html.js';
import type { PageView } from './view.js';

const AUTO_SUBMIT = 'document.forms[0].submit()';
const AUTO_SUBMIT_SCRIPT = { source: AUTO_SUBMIT, hash: scriptHash(AUTO_SUBMIT) };

/** OAuth 2.0 Form Post Response Mode §2: an auto-submitting form to the redirect URI. */
export function formPostPage(view: PageView, redirectUri: string, params: ReadonlyArray<readonly [string, string]>): Page {
  const { t } = view;
  return view.render(
    t.continueTitle,
    html`<h1>${t.continueTitle}</h1>
<form method="post" action="${redirectUri}">
${params.map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}
<noscript><p>${t.continueWithoutScript}</p></noscript>
<div class="actions"><button class="primary" type="submit">${t.continueButton}</button></div>
</form>`,
    { scripts: [AUTO_SUBMIT_SCRIPT] },
  );
}

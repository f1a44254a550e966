import { type Html, html } from '../html.js';
import type { PageView } from '../view.js';
import { csrfField } from './frame.js';

/** The confirmation of a deletion: what goes (naming it), and the form that deletes it, or back where the person came from. */
export function confirmDeletionBody(
  view: PageView,
  confirm: {
    readonly explanation: Html;
    /** The POST that deletes. */
    readonly action: string;
    /** The field naming what goes (`sub`, `id`) and its value. */
    readonly field: { readonly name: string; readonly value: string };
    readonly cancel: string;
    readonly csrfToken: string;
  },
): Html {
  return html`<p>${confirm.explanation}</p>
<form method="post" action="${confirm.action}">
${csrfField(confirm.csrfToken)}<input type="hidden" name="${confirm.field.name}" value="${confirm.field.value}">
<div class="actions"><a href="${confirm.cancel}">${view.t.console.cancel}</a><button class="primary" type="submit">${view.t.console.identity.deleteButton}</button></div>
</form>`;
}

import type { EntryView } from '../../admin/entries-api.js';
import type { Page as ListPage } from '../../admin/paging.js';
import { type Html, html } from '../html.js';
import type { PageView } from '../view.js';
import { checkbox, idField, type FormProblems, NO_PROBLEMS, problemSummary, textArea, textField } from './identity-fields.js';
import { csrfField, scrollingTable } from './frame.js';
import { sourceOf } from './users.js';

/**
 * The console's workload trusts: the list (issuer, where the keys come from, how many rules)
 * and the form of one (WORKLOAD_TRUSTS_FILE's fields; its rules and an inline JWK Set as JSON).
 */

export interface TrustsPaths {
  readonly list: string;
  readonly create: string;
  /** One trust's page (`?id=`). */
  readonly trust: string;
  readonly edit: string;
  readonly delete: string;
}

export type TrustFormValues = Readonly<Record<string, string | undefined>>;

export const TRUST_FORM_FIELDS = [
  'id',
  'issuer',
  'audience',
  'jwks_uri',
  'jwks',
  'require_jti',
  'allow_private_addresses',
  'rules',
] as const;

export const trustLink = (paths: TrustsPaths, id: string) => `${paths.trust}?${new URLSearchParams({ id })}`;

function keysOf(view: PageView, entry: EntryView): string {
  const t = view.t.console.identity;
  return entry.jwks !== undefined ? t.keysFrom.jwks : entry.jwks_uri !== undefined ? t.keysFrom.jwks_uri : t.keysFrom.discovery;
}

export function trustsBody(view: PageView, page: ListPage<EntryView>, paths: TrustsPaths, file: string, nextHref?: string): Html {
  const t = view.t.console.identity;
  const head = html`<tr><th scope="col">${t.trust}</th><th scope="col">${t.issuer}</th><th scope="col">${t.source}</th><th scope="col">${t.keys}</th><th scope="col" class="number">${t.rules}</th></tr>`;
  const rows = page.items.map((entry) => {
    const id = String(entry.id);
    const rules = Array.isArray(entry.rules) ? entry.rules.length : 0;
    return html`<tr><td><a href="${trustLink(paths, id)}"><code>${id}</code></a></td><td><code>${String(entry.issuer)}</code></td>
<td>${sourceOf(view, entry, file)}</td><td>${keysOf(view, entry)}</td><td class="number">${String(rules)}</td></tr>`;
  });
  const table =
    rows.length === 0
      ? html`<p class="muted">${t.noTrusts}</p>`
      : scrollingTable({ id: 'trusts-caption', text: html`${view.t.console.nav['workload-trusts']}`, hidden: true }, head, rows);
  return html`<p class="muted">${t.trustsIntro}</p>
<p><a class="button" href="${paths.create}">${t.newTrust}</a></p>
${table}
${nextHref === undefined ? html`` : html`<p class="pager"><a href="${nextHref}">${view.t.console.nextPage}</a></p>`}`;
}

export function trustFormBody(
  view: PageView,
  values: TrustFormValues,
  context: { readonly action: string; readonly cancel: string; readonly csrfToken: string; readonly existing: boolean },
  problems: FormProblems = NO_PROBLEMS,
): Html {
  const t = view.t.console.identity;
  const v = values;
  const optional = (label: string) => `${label} ${t.optional}`;
  const id = idField(view, v.id, context.existing, problems);
  return html`${problemSummary(view, problems)}<form method="post" action="${context.action}">
${csrfField(context.csrfToken)}${id}
${textField(view, { name: 'issuer', label: t.issuer, value: v.issuer, required: true, code: true }, problems)}
${textField(view, { name: 'audience', label: optional(t.audience), hint: t.audienceHint, value: v.audience, code: true }, problems)}
${textField(view, { name: 'jwks_uri', label: optional(t.jwksUri), value: v.jwks_uri, type: 'url', code: true }, problems)}
${textArea(view, { name: 'jwks', label: optional(t.jwks), hint: t.jsonHint, value: v.jwks, rows: 4 }, problems)}
${textArea(view, { name: 'rules', label: t.rules, hint: t.rulesHint, value: v.rules, rows: 10 }, problems)}
${checkbox(view, { name: 'require_jti', label: t.requireJti, checked: v.require_jti === 'true' }, problems)}
${checkbox(view, { name: 'allow_private_addresses', label: t.allowPrivate, checked: v.allow_private_addresses === 'true' }, problems)}
<div class="actions"><a href="${context.cancel}">${view.t.console.cancel}</a><button class="primary" type="submit">${context.existing ? t.save : t.create}</button></div>
</form>`;
}

/** One trust's facts above its form (or the read-only note of a file entry). */
export function trustFacts(view: PageView, entry: EntryView, file: string): Html {
  const t = view.t.console.identity;
  return html`<dl><dt>${t.id}</dt><dd><code>${String(entry.id)}</code></dd><dt>${t.issuer}</dt><dd><code>${String(entry.issuer)}</code></dd>
<dt>${t.source}</dt><dd>${sourceOf(view, entry, file)}</dd><dt>${t.keys}</dt><dd>${keysOf(view, entry)}</dd></dl>`;
}

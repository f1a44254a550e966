import { type Html, html } from '../html.js';
import type { PageView } from '../view.js';

/**
 * The fields of the console's forms: each with its label, an optional hint, and the problem
 * the server found in it (WCAG 3.3.1: the error next to the field, named in text, the field
 * `aria-invalid` and described by it); a summary at the top of a form that came back with
 * problems, each linking to its field. The admin services' problems are in English: marked
 * so on a page in another language.
 */

/** What was wrong with a form as sent: by field name (the form's), and what belongs to no field. */
export interface FormProblems {
  readonly fields: Readonly<Record<string, readonly string[]>>;
  readonly general: readonly string[];
}

export const NO_PROBLEMS: FormProblems = { fields: {}, general: [] };

interface FieldBase {
  readonly name: string;
  readonly label: string;
  readonly hint?: string | Html | undefined;
}

export interface TextFieldSpec extends FieldBase {
  readonly value?: string | undefined;
  readonly type?: 'text' | 'password' | 'email' | 'url';
  readonly required?: boolean;
  readonly autocomplete?: string;
  /** A code, an id or a URL: no spelling correction, monospace. */
  readonly code?: boolean;
}

const english = (view: PageView) => (view.t.lang === 'en' ? html`` : html` lang="en"`);

function described(view: PageView, field: FieldBase, problems: FormProblems): { attributes: Html; after: Html; hint: Html } {
  const errors = problems.fields[field.name] ?? [];
  const ids = [...(field.hint === undefined ? [] : [`${field.name}-hint`]), ...(errors.length > 0 ? [`${field.name}-error`] : [])];
  const attributes = html`${errors.length > 0 ? html` aria-invalid="true"` : html``}${ids.length > 0 ? html` aria-describedby="${ids.join(' ')}"` : html``}`;
  const hint = field.hint === undefined ? html`` : html`<p class="muted hint" id="${field.name}-hint">${field.hint}</p>`;
  const after =
    errors.length === 0
      ? html``
      : html`<p class="field-error" id="${field.name}-error"${english(view)}>${errors.map((e, i) => html`${i > 0 ? html`<br>` : html``}${e}`)}</p>`;
  return { attributes, after, hint };
}

export function textField(view: PageView, spec: TextFieldSpec, problems: FormProblems = NO_PROBLEMS): Html {
  const { attributes, after, hint } = described(view, spec, problems);
  const code = spec.code ? html` class="code-field" spellcheck="false" autocapitalize="off"` : html``;
  // A password or secret is never written back into the page.
  const value = spec.type === 'password' || spec.value === undefined ? html`` : html` value="${spec.value}"`;
  return html`<div class="field"><label for="${spec.name}">${spec.label}</label>${hint}
<input id="${spec.name}" name="${spec.name}" type="${spec.type ?? 'text'}"${value}${spec.required ? html` required` : html``} autocomplete="${spec.autocomplete ?? 'off'}"${code}${attributes}>${after}</div>`;
}

export function textArea(
  view: PageView,
  spec: FieldBase & { readonly value?: string | undefined; readonly rows?: number },
  problems = NO_PROBLEMS,
): Html {
  const { attributes, after, hint } = described(view, spec, problems);
  return html`<div class="field"><label for="${spec.name}">${spec.label}</label>${hint}
<textarea id="${spec.name}" name="${spec.name}" rows="${spec.rows ?? 4}" spellcheck="false" autocapitalize="off"${attributes}>${spec.value ?? ''}</textarea>${after}</div>`;
}

export function checkbox(view: PageView, spec: FieldBase & { readonly checked: boolean }, problems = NO_PROBLEMS): Html {
  const { attributes, after, hint } = described(view, spec, problems);
  return html`<div class="field check"><input id="${spec.name}" name="${spec.name}" type="checkbox" value="true"${spec.checked ? html` checked` : html``}${attributes}><label for="${spec.name}">${spec.label}</label>${hint}${after}</div>`;
}

export function selectField(
  view: PageView,
  spec: FieldBase & { readonly value: string; readonly options: readonly { readonly value: string; readonly label: string }[] },
  problems = NO_PROBLEMS,
): Html {
  const { attributes, after, hint } = described(view, spec, problems);
  const options = spec.options.map(
    (option) => html`<option value="${option.value}"${option.value === spec.value ? html` selected` : html``}>${option.label}</option>`,
  );
  return html`<div class="field"><label for="${spec.name}">${spec.label}</label>${hint}
<select id="${spec.name}" name="${spec.name}"${attributes}>${options}</select>${after}</div>`;
}

/** An entry's id: a field of a new entry; of an existing one, fixed (sent along, not changed). */
export function idField(view: PageView, id: string | undefined, existing: boolean, problems = NO_PROBLEMS): Html {
  const t = view.t.console.identity;
  return existing
    ? html`<input type="hidden" name="id" value="${id ?? ''}">`
    : textField(view, { name: 'id', label: t.id, hint: t.idHint, value: id, required: true, code: true }, problems);
}

/** At the top of a form that came back: what to fix, each field's problem a link to it. */
export function problemSummary(view: PageView, problems: FormProblems): Html {
  const named = Object.entries(problems.fields);
  if (named.length === 0 && problems.general.length === 0) return html``;
  const items = [
    ...problems.general.map((problem) => html`<li${english(view)}>${problem}</li>`),
    ...named.map(
      ([field, errors]) => html`<li><a href="#${field}"><code>${field}</code></a>: <span${english(view)}>${errors.join('; ')}</span></li>`,
    ),
  ];
  return html`<div class="error" role="alert"><p>${view.t.console.identity.formProblems}</p><ul>${items}</ul></div>`;
}

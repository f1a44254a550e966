import type { AdminProblem, FieldProblem } from '../../admin/problems.js';
import { type Html, html } from '../html.js';
import type { PageView } from '../view.js';
import { csrfField } from './frame.js';

/**
 * The fields of the console's forms (a client, a resource), each with its label, a hint,
 * and the problems the admin services found in it, next to it (aria-invalid, and named by
 * aria-describedby). A problem of no field of the form is listed above it. The services'
 * problems are in English: in another language they are marked so. Around the fields, the
 * form itself: a new entry's, or an edit's, which carries the ETag the entry was read at.
 */

/** What a form shows of a refusal: the problems by field of the form, the rest, and whether it came too late (a stale edit). */
export interface FormProblems {
  readonly byField: ReadonlyMap<string, readonly string[]>;
  readonly other: readonly FieldProblem[];
  readonly stale: boolean;
}

export const NO_PROBLEMS: FormProblems = { byField: new Map(), other: [], stale: false };

/**
 * A problem's fields sorted onto the form's `fields`: `redirect_uris.0` is the field
 * `redirect_uris`; `taken` names the field an id that exists already belongs to.
 */
export function formProblems(problem: AdminProblem, fields: readonly string[], taken: string): FormProblems {
  if (problem.code === 'precondition-failed') return { byField: new Map(), other: [], stale: true };
  const listed: readonly FieldProblem[] = problem.code === 'conflict-exists' ? [{ field: taken, problem: problem.detail }] : problem.errors;
  const byField = new Map<string, string[]>();
  const other: FieldProblem[] = [];
  for (const error of listed) {
    const field = error.field.split('.')[0] ?? '';
    if (fields.includes(field)) byField.set(field, [...(byField.get(field) ?? []), error.problem]);
    else other.push(error);
  }
  if (byField.size === 0 && other.length === 0) other.push({ field: '', problem: problem.detail });
  return { byField, other, stale: false };
}

const english = (view: PageView) => (view.t.lang === 'en' ? html`` : html` lang="en"`);

/** Above the form: that nothing was saved, and why (the problems of no field of it). */
export function problemSummary(view: PageView, problems: FormProblems, current: string): Html {
  const t = view.t.console.entries;
  if (problems.stale)
    return html`<div class="error" role="alert"><p>${t.stale}</p><p><a href="${current}">${t.openCurrent}</a></p></div>\n`;
  if (problems.byField.size === 0 && problems.other.length === 0) return html``;
  const other = problems.other.map((e) => html`<li>${e.field === '' ? html`` : html`<code>${e.field}</code>: `}${e.problem}</li>`);
  return html`<div class="error" role="alert"><p>${t.formErrors}</p>${other.length === 0 ? html`` : html`<ul${english(view)}>${other}</ul>`}</div>\n`;
}

/** The form of an entry around its fields (`entryFormBody`): where it posts, Cancel and its button. */
export interface EntryFormSpec {
  readonly problems: FormProblems;
  readonly csrfToken: string;
  /** The entries' pages: Cancel leads to the list; a new entry's form posts to `new`, an edit's to `edit`. */
  readonly paths: { readonly list: string; readonly new: string; readonly edit: string };
  /** The button of a new entry's form (an edit's saves). */
  readonly create: string;
  /**
   * An edit: its own page (where the notice of a stale edit leads) and the ETag the entry was
   * read at, sent back as the change's If-Match (a change made meanwhile is refused, not overwritten).
   */
  readonly editing?: { readonly page: string; readonly etag: string } | undefined;
}

/** What was refused above the form, then the form: its hidden fields, `fields`, Cancel and its button. */
export function entryFormBody(view: PageView, spec: EntryFormSpec, fields: Html): Html {
  const t = view.t.console;
  const { paths, editing } = spec;
  const etag = editing ? html`<input type="hidden" name="etag" value="${editing.etag}">\n` : html``;
  return html`${problemSummary(view, spec.problems, editing ? editing.page : paths.new)}<form class="entry" method="post" action="${editing ? paths.edit : paths.new}">
${csrfField(spec.csrfToken)}
${etag}${fields}<div class="actions"><a href="${paths.list}">${t.cancel}</a><button class="primary" type="submit">${editing ? t.entries.save : spec.create}</button></div>
</form>`;
}

export interface FieldSpec {
  readonly name: string;
  readonly label: string;
  readonly value: string;
  readonly hint?: string | undefined;
  readonly multiline?: boolean;
  /** Shown, not editable (an entry's id). */
  readonly readOnly?: boolean;
  /** `inputmode` of a number. */
  readonly numeric?: boolean;
}

/** A control's notes (its hint, its problems) and the attributes naming them; a group (a fieldset) is never aria-invalid (ARIA 1.2). */
function described(view: PageView, name: string, hint: string | undefined, problems: FormProblems, group = false) {
  const errors = problems.byField.get(name) ?? [];
  const ids = [...(hint === undefined ? [] : [`${name}-hint`]), ...(errors.length === 0 ? [] : [`${name}-error`])];
  const invalid = errors.length === 0 || group ? html`` : html` aria-invalid="true"`;
  const attributes = ids.length === 0 ? html`` : html` aria-describedby="${ids.join(' ')}"${invalid}`;
  const notes = html`${hint === undefined ? html`` : html`<p class="muted" id="${name}-hint">${hint}</p>`}${
    errors.length === 0 ? html`` : html`<p class="field-error" id="${name}-error"${english(view)}>${errors.join('; ')}</p>`
  }`;
  return { attributes, notes };
}

export function textField(view: PageView, spec: FieldSpec, problems: FormProblems): Html {
  const { attributes, notes } = described(view, spec.name, spec.hint, problems);
  const common = html`id="${spec.name}" name="${spec.name}" autocomplete="off" spellcheck="false"${attributes}`;
  const control = spec.multiline
    ? html`<textarea ${common} rows="3">${spec.value}</textarea>`
    : html`<input ${common} type="text"${spec.numeric ? html` inputmode="numeric"` : html``}${spec.readOnly ? html` readonly` : html``} value="${spec.value}">`;
  return html`<div class="field"><label for="${spec.name}">${spec.label}</label>${control}${notes}</div>\n`;
}

/** Checkboxes of one field (a list), in a fieldset named by its legend. */
export function choicesField(
  view: PageView,
  spec: { readonly name: string; readonly legend: string; readonly options: readonly string[]; readonly chosen: readonly string[] },
  problems: FormProblems,
): Html {
  const { attributes, notes } = described(view, spec.name, undefined, problems, true);
  const boxes = spec.options.map((option, i) => {
    const checked = spec.chosen.includes(option) ? html` checked` : html``;
    return html`<label><input type="checkbox" id="${spec.name}-${i}" name="${spec.name}" value="${option}"${checked}> <code>${option}</code></label>`;
  });
  return html`<fieldset class="field choices"${attributes}><legend>${spec.legend}</legend>${boxes}${notes}</fieldset>\n`;
}

export function selectField(
  view: PageView,
  spec: { readonly name: string; readonly label: string; readonly options: readonly string[]; readonly chosen: string },
  problems: FormProblems,
): Html {
  const { attributes, notes } = described(view, spec.name, undefined, problems);
  const options = spec.options.map(
    (option) => html`<option value="${option}"${option === spec.chosen ? html` selected` : html``}>${option}</option>`,
  );
  return html`<div class="field"><label for="${spec.name}">${spec.label}</label><select id="${spec.name}" name="${spec.name}"${attributes}>${options}</select>${notes}</div>\n`;
}

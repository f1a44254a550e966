import { type AdminActor, type AdminChange, recordAdminChange } from '../../admin/audit.js';
import { AdminProblem, type FieldProblem, type ProblemName, ValidationProblem } from '../../admin/problems.js';
import type { SecurityEvents } from '../../events/types.js';
import type { FormProblems } from '../../pages/console/identity-fields.js';
import type { ConsoleActionResult, ConsoleContent } from './declare.js';

/**
 * What the console's entity forms share: a change the admin services refuse for what was sent
 * (a validation problem, 400; an id taken or a file's, 409) comes back as its form, the values
 * kept, each problem next to its field; a change made is the admin API's audit event, with
 * the signed-in person as its actor.
 */

/**
 * The problems of `problem` by the form's fields: `fieldOf` names the form field a problem's
 * path (`claims.email`, `rules.0.scope`) belongs to; a path it does not know is a general one.
 */
export function formProblemsOf(problem: AdminProblem, fieldOf: (path: string) => string | undefined): FormProblems {
  const fields: Record<string, string[]> = {};
  const general: string[] = [];
  for (const { field, problem: text } of problem.errors) {
    const name = field === '' || field === '(body)' ? undefined : fieldOf(field);
    if (name === undefined) general.push(field === '' || field === '(body)' ? text : `${field}: ${text}`);
    else (fields[name] ??= []).push(name === field ? text : `${field.slice(name.length + 1) || field}: ${text}`);
  }
  if (problem.errors.length === 0) general.push(problem.detail);
  return { fields, general };
}

/** A form field that is one path's first segment: `rules.0.scope` → `rules`, when `names` has it. */
export function firstSegmentIn(names: readonly string[]): (path: string) => string | undefined {
  return (path) => {
    const first = path.split('.')[0] ?? '';
    return names.includes(first) ? first : undefined;
  };
}

/** What a form comes back with: a field's problem, an id taken, an id of a file's entry (creating one). */
export const FORM_PROBLEMS: readonly ProblemName[] = ['validation', 'conflict-exists', 'conflict-file-entry'];
/** Changing an entry: one of a file is refused by the problem page, which names the file (its page has no form). */
export const EDIT_PROBLEMS: readonly ProblemName[] = ['validation', 'conflict-exists'];

/** Does `change`; a problem of what was sent (`answered`) answers the form again, with the problem's status. */
export async function orFormAgain(
  change: () => Promise<ConsoleActionResult>,
  again: (problems: FormProblems) => ConsoleContent | Promise<ConsoleContent>,
  fieldOf: (path: string) => string | undefined,
  answered: readonly ProblemName[] = FORM_PROBLEMS,
): Promise<ConsoleActionResult> {
  try {
    return await change();
  } catch (err) {
    if (!(err instanceof AdminProblem) || !answered.includes(err.code)) throw err;
    return { ...(await again(formProblemsOf(err, fieldOf))), status: err.status };
  }
}

/** The JSON of textareas by field (undefined when left empty); one validation problem naming each field that is not JSON. */
export function jsonFields<K extends string>(texts: Readonly<Record<K, string | undefined>>): Record<K, unknown> {
  const values = {} as Record<K, unknown>;
  const errors: FieldProblem[] = [];
  for (const [field, text] of Object.entries(texts) as [K, string | undefined][]) {
    try {
      values[field] = text === undefined ? undefined : JSON.parse(text);
    } catch (err) {
      errors.push({ field, problem: `is not JSON: ${(err as Error).message}` });
    }
  }
  if (errors.length > 0) throw new ValidationProblem('a field is not JSON', errors);
  return values;
}

/** The lines of a textarea, trimmed, the empty ones dropped; undefined when none. */
export function linesField(text: string | undefined): string[] | undefined {
  const lines = (text ?? '').split(/\r?\n/).map((line) => line.trim());
  const kept = lines.filter((line) => line !== '');
  return kept.length === 0 ? undefined : kept;
}

/** Only the members with a value (a document without the fields left empty). */
export function defined(document: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(document).filter(([, value]) => value !== undefined));
}

/** The admin API's audit event of a change made through the console. */
export function auditChange(events: SecurityEvents, actor: AdminActor, change: Omit<AdminChange, 'actor'>): void {
  recordAdminChange(events, { ...change, actor });
}

/** A form field filled from an entry: its text, JSON, lines or ticked box ("true"); undefined for none. */
export const textOf = (value: unknown) => (typeof value === 'string' ? value : undefined);
export const jsonText = (value: unknown) => (value === undefined ? undefined : JSON.stringify(value, null, 2));
export const linesText = (value: unknown) => (Array.isArray(value) ? value.join('\n') : undefined);
export const flagText = (value: unknown) => (value === true ? 'true' : undefined);

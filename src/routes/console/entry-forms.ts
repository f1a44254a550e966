import { z } from 'zod';
import type { AdminApi } from '../../admin/api.js';
import type { IfMatch } from '../../admin/etags.js';
import { AdminProblem } from '../../admin/problems.js';
import type { SecurityEvents } from '../../events/types.js';
import { type FormProblems, formProblems } from '../../pages/console/fields.js';
import type { ConsoleActionResult, ConsoleContent } from './declare.js';

/**
 * What the console's pages of entries (clients, resources) share: the admin API's
 * operations (the same code as its routes, so the same rules and, with the person as
 * actor, the same audit events), the ETag an edit form carries back as its If-Match, and a
 * refusal of the form's values answered with the form again, its problems next to its fields.
 */

export interface ConsoleEntriesDependencies {
  readonly api: Pick<AdminApi, 'clients' | 'resources'>;
  readonly events: SecurityEvents;
  /** How the pages name the files whose entries are read-only here (their paths). */
  readonly files: { readonly clients: string; readonly resources: string };
}

/** The ETag a form was read at, which a change must still match (else nothing is written). */
export const EtagField = z.string().min(1).max(200);

/** A form's ETag as the If-Match of its change. */
export function ifMatchOf(etag: string): IfMatch {
  return { any: false, tags: [etag] };
}

/** The lines of a text area, trimmed, the empty ones left out. */
export function linesOf(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '');
}

/** What a form is answered with again: its values are not valid (400), or taken, or the entry changed meanwhile (409). */
const FORM_PROBLEMS = new Set(['validation', 'conflict-exists', 'precondition-failed']);

/**
 * Runs a change; when the admin services refuse the form's values, the form again (`form`
 * renders it with the problems sorted onto `fields`; `taken` is the field of the entry's id).
 */
export async function changeOrForm(
  change: () => Promise<ConsoleActionResult>,
  refused: { readonly fields: readonly string[]; readonly taken: string },
  form: (problems: FormProblems) => Omit<ConsoleContent, 'status'>,
): Promise<ConsoleActionResult> {
  try {
    return await change();
  } catch (err) {
    if (!(err instanceof AdminProblem) || !FORM_PROBLEMS.has(err.code)) throw err;
    return { ...form(formProblems(err, refused.fields, refused.taken)), status: err.code === 'validation' ? 400 : 409 };
  }
}

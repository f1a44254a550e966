import { z } from 'zod';
import type { AdminApi } from '../../admin/api.js';
import type { IfMatch } from '../../admin/etags.js';
import { AdminProblem, FileEntryConflict } from '../../admin/problems.js';
import type { SecurityEvents } from '../../events/types.js';
import { type FormProblems, formProblems, NO_PROBLEMS } from '../../pages/console/fields.js';
import type { Html } from '../../pages/html.js';
import type { PageView } from '../../pages/view.js';
import type { ConsoleActionResult, ConsoleContent, ConsoleContext } from './declare.js';

/**
 * What the console's pages of entries (clients, resources) share: the admin API's
 * operations (the same code as its routes, so the same rules and, with the person as
 * actor, the same audit events), which entries are changed here (a file's are not: their page
 * is read-only, their changes refused), the ETag an edit form carries back as its If-Match,
 * and a refusal of the form's values answered with the form again, its problems next to its fields.
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

/** An entry as the admin API answers it (a client, a resource): where it comes from, and its ETag. */
export interface FoundEntry {
  readonly view: { readonly source: string };
  readonly etag: string;
}

/** What an edit's form holds of its entry: the entry as read, and the ETag it was read at. */
export interface Editing<A extends FoundEntry> {
  readonly entry: A['view'];
  readonly etag: string;
}

/**
 * The entry a change is for, as `found`: one of a file is refused (409) as the admin API
 * refuses it, before anything else, naming the file to change instead (`named`: `client "x"`).
 */
export async function changeable<A extends FoundEntry>(found: Promise<A>, named: string, file: string): Promise<A> {
  const answer = await found;
  if (answer.view.source === 'file') throw new FileEntryConflict(`${named} is declared in ${file}: change it there`);
  return answer;
}

/** How the pages of a kind of entry (src/pages/console/) show one: its form, or read-only. */
export interface EntryBodies<A extends FoundEntry, V, P> {
  /** The kind's paths below the console's (`base`). */
  pathsOf(base: string): P;
  /** How the pages name the file whose entries are read-only here. */
  readonly file: string;
  /** The form's values, as the entry holds them. */
  valuesOf(entry: A['view']): V;
  form(
    view: PageView,
    form: { values: V; problems: FormProblems; paths: P; csrfToken: string; editing: Editing<A> & { readonly file: string } },
  ): Html;
  readOnly(view: PageView, entry: A['view'], paths: P, file: string): Html;
}

/** An entry's page: the form of one added here, editing it at the ETag it was read at; anything else (a file's, a registration) read-only. */
export function formOrReadOnly<A extends FoundEntry, V, P>(
  { view, base, csrfToken }: ConsoleContext,
  found: A,
  bodies: EntryBodies<A, V, P>,
): Html {
  const { view: entry, etag } = found;
  const { file } = bodies;
  const paths = bodies.pathsOf(base);
  if (entry.source !== 'admin') return bodies.readOnly(view, entry, paths, file);
  return bodies.form(view, { values: bodies.valuesOf(entry), problems: NO_PROBLEMS, paths, csrfToken, editing: { entry, etag, file } });
}

/** The fields of a form a refusal's problems are sorted onto, and the one of the entry's id (where "taken" goes). */
export interface RefusedFields {
  readonly fields: readonly string[];
  readonly taken: string;
}

/** What a form is answered with again: its values are not valid (400), or taken, or the entry changed meanwhile (409). */
const FORM_PROBLEMS = new Set(['validation', 'conflict-exists', 'precondition-failed']);

/**
 * Runs a change; when the admin services refuse the form's values, the form again (`form`
 * renders it with the problems sorted onto `fields`; `taken` is the field of the entry's id).
 */
export async function changeOrForm(
  change: () => Promise<ConsoleActionResult>,
  refused: RefusedFields,
  form: (problems: FormProblems) => Omit<ConsoleContent, 'status'>,
): Promise<ConsoleActionResult> {
  try {
    return await change();
  } catch (err) {
    if (!(err instanceof AdminProblem) || !FORM_PROBLEMS.has(err.code)) throw err;
    return { ...form(formProblems(err, refused.fields, refused.taken)), status: err.code === 'validation' ? 400 : 409 };
  }
}

/**
 * An edit: the entry as it is now (`found`, a file's already refused: `changeable`), then
 * `change` with the ETag the form was read at as its If-Match; refused for the values sent, or
 * for a change made since, the form again (`form`), still editing the entry at that ETag.
 */
export async function editOrForm<A extends FoundEntry>(
  found: Promise<A>,
  etag: string,
  change: (entry: A['view'], ifMatch: IfMatch) => Promise<ConsoleActionResult>,
  refused: RefusedFields,
  form: (problems: FormProblems, editing: Editing<A>) => Omit<ConsoleContent, 'status'>,
): Promise<ConsoleActionResult> {
  const { view: entry } = await found;
  return changeOrForm(
    () => change(entry, ifMatchOf(etag)),
    refused,
    (problems) => form(problems, { entry, etag }),
  );
}

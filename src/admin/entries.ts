import type { EntrySync } from '../entries/sync.js';
import type { EntryDocument, EntryKind, EntryStore, StoredEntry } from '../store/entry-types.js';
import { AlreadyExists, type FieldProblem, NotFound, PreconditionFailed, ValidationProblem } from './problems.js';

/**
 * What every admin service shares: the store's writes, each one applied to this instance's
 * copy before it returns (the next request here sees it; the others within a second), each
 * refusal an AdminProblem; and the validation of a document by its file's schema.
 */

const NOUNS: Record<EntryKind, string> = {
  client: 'client',
  resource: 'resource',
  provider: 'identity provider',
  workload_trust: 'workload trust',
  user: 'user',
  subject: 'subject',
};

export function entryNoun(kind: EntryKind, id: string): string {
  return `${NOUNS[kind]} "${id}"`;
}

export class EntryWriter {
  constructor(
    private readonly store: EntryStore,
    private readonly sync: EntrySync,
  ) {}

  async create(kind: EntryKind, id: string, document: EntryDocument): Promise<StoredEntry> {
    const outcome = await this.store.createEntry(kind, id, document);
    if (outcome.status === 'exists') throw new AlreadyExists(`${entryNoun(kind, id)} exists already`);
    await this.sync.applied({ version: outcome.version, kind, id }, outcome.entry);
    return outcome.entry;
  }

  /** `expectedRev`: the If-Match; undefined: whatever the rev. */
  async replace(kind: EntryKind, id: string, document: EntryDocument, expectedRev?: number): Promise<StoredEntry> {
    const outcome = await this.store.replaceEntry(kind, id, document, expectedRev);
    if (outcome.status === 'not_found') throw new NotFound(`${entryNoun(kind, id)} does not exist`);
    if (outcome.status === 'stale') throw stale(kind, id, expectedRev, outcome.rev);
    await this.sync.applied({ version: outcome.version, kind, id }, outcome.entry);
    return outcome.entry;
  }

  async delete(kind: EntryKind, id: string, expectedRev?: number): Promise<void> {
    const outcome = await this.store.deleteEntry(kind, id, expectedRev);
    if (outcome.status === 'not_found') throw new NotFound(`${entryNoun(kind, id)} does not exist`);
    if (outcome.status === 'stale') throw stale(kind, id, expectedRev, outcome.rev);
    await this.sync.applied({ version: outcome.version, kind, id }, undefined);
  }

  /** The entry as the store holds it now (not the copy, which may be a second behind). */
  async current(kind: EntryKind, id: string): Promise<StoredEntry> {
    const entry = await this.store.getEntry(kind, id);
    if (!entry) throw new NotFound(`${entryNoun(kind, id)} does not exist`);
    return entry;
  }

  /** This instance's copy of a kind's entries (a second behind the store at most), in creation order. */
  all(kind: EntryKind): StoredEntry[] {
    return this.sync.entries(kind);
  }

  /** This instance's copy of one entry (a second behind the store at most). */
  copy(kind: EntryKind, id: string): StoredEntry | undefined {
    return this.sync.entry(kind, id);
  }

  /** The entry as the store holds it now, if any. */
  find(kind: EntryKind, id: string): Promise<StoredEntry | undefined> {
    return this.store.getEntry(kind, id);
  }

  /** Creates or replaces the entry with what `next` makes of the current one (none: not there), whatever writes race with it. */
  async put(kind: EntryKind, id: string, next: (current: StoredEntry | undefined) => EntryDocument): Promise<StoredEntry> {
    for (let attempt = 0; ; attempt += 1) {
      const current = await this.store.getEntry(kind, id);
      try {
        return current ? await this.replace(kind, id, next(current), current.rev) : await this.create(kind, id, next(undefined));
      } catch (err) {
        const raced = err instanceof AlreadyExists || err instanceof PreconditionFailed || err instanceof NotFound;
        if (!raced || attempt >= 4) throw err;
      }
    }
  }
}

function stale(kind: EntryKind, id: string, expected: number | undefined, rev: number): PreconditionFailed {
  return new PreconditionFailed(`${entryNoun(kind, id)} is at rev ${rev}, not ${expected}: read it again`, rev);
}

/** How a registry's messages name an entry: `<noun> "<key>"` by the key field, else `<noun> #1`. */
export interface EntryNames {
  readonly noun: string;
  readonly keyField: string;
}

/** The source name validation messages start with here. */
export const VALIDATING = 'entry';

/**
 * Runs a registry's validation of one document (`fromEntries([document], VALIDATING)`, which
 * throws one line per problem: `entry: client "web": redirect_uris.0: must not have a
 * fragment`) and answers its problems field by field.
 */
export function validated<T>(document: unknown, names: EntryNames, validate: () => T): T {
  try {
    return validate();
  } catch (err) {
    const key = (document as Record<string, unknown> | null)?.[names.keyField];
    const prefix = `${VALIDATING}: ${typeof key === 'string' ? `${names.noun} "${key}"` : `${names.noun} #1`}: `;
    const lines = (err as Error).message.split('\n');
    if (!lines.every((line) => line.startsWith(prefix))) throw err;
    const errors: FieldProblem[] = lines.map((line) => {
      const rest = line.slice(prefix.length);
      const colon = rest.indexOf(': ');
      return colon < 0 ? { field: '', problem: rest } : { field: rest.slice(0, colon), problem: rest.slice(colon + 2) };
    });
    throw new ValidationProblem(
      `the ${names.noun} is not valid: ${errors.map((e) => `${e.field || 'entry'}: ${e.problem}`).join('; ')}`,
      errors,
    );
  }
}

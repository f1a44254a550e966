import type { z } from 'zod';
import { readRegistryEntries } from './file.js';

/**
 * What every registry the operator writes as a JSON file has in common (CLIENTS_FILE,
 * USERS_FILE, RESOURCES_FILE): entries by key, validated entry by entry with one message
 * per problem naming the file, the entry and the field, and reloaded on SIGHUP. A server
 * holds one instance of each for its whole life and hands it to whoever reads it; a reload
 * `replace`s its entries in one assignment, so a reader sees the old file or the new one,
 * never a mix.
 */
export abstract class Registry<E> {
  #entries: ReadonlyMap<string, E>;

  protected constructor(entries: Iterable<readonly [string, E]>) {
    this.#entries = new Map(entries);
  }

  /** The entry registered under exactly this key. */
  protected entry(key: string): E | undefined {
    return this.#entries.get(key);
  }

  protected entries(): E[] {
    return [...this.#entries.values()];
  }

  get size(): number {
    return this.#entries.size;
  }

  /** Takes over the entries of `next`, loaded from the same kind of file (a reload). */
  replace(next: this): void {
    this.#entries = next.#entries;
  }
}

/** How one kind of registry file names its entries in messages. */
export interface EntryNaming {
  /** The file's one member, as in `{"clients": [...]}`. */
  readonly member: string;
  /** The entry's noun: `client "web"`, or `client #3` when it has no usable key. */
  readonly noun: string;
  /** The field that holds an entry's key (client_id, username, resource). */
  readonly keyField: string;
}

/** An entry as validated, with how messages name it. */
export interface ParsedEntry<T> {
  readonly name: string;
  readonly value: T;
}

/** The name messages give the `index`th entry: by its key when it has one. */
export function entryName(naming: EntryNaming, entry: unknown, index: number): string {
  const key = (entry as Record<string, unknown> | null)?.[naming.keyField];
  return typeof key === 'string' ? `${naming.noun} "${key}"` : `${naming.noun} #${index + 1}`;
}

/**
 * Validates every entry against `schema`: the entries that pass, and one line per problem
 * of those that do not (`<source>: <entry>: <field>: <message>`).
 */
export function parseEntries<S extends z.ZodType>(
  entries: readonly unknown[],
  schema: S,
  naming: EntryNaming,
  source: string,
): { readonly parsed: ParsedEntry<z.output<S>>[]; readonly problems: string[] } {
  const parsed: ParsedEntry<z.output<S>>[] = [];
  const problems: string[] = [];
  entries.forEach((entry, index) => {
    const name = entryName(naming, entry, index);
    const result = schema.safeParse(entry);
    if (result.success) parsed.push({ name, value: result.data });
    else problems.push(...result.error.issues.map((i) => `${source}: ${name}: ${i.path.join('.') || 'entry'}: ${i.message}`));
  });
  return { parsed, problems };
}

/** Reads a registry file's entries; a file that cannot be read or is not `{"<member>": [...]}` is one message naming it. */
export function readEntries(file: string, naming: EntryNaming, fail: (message: string) => Error): Promise<unknown[]> {
  return readRegistryEntries(file, naming.member, fail);
}

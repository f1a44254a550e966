import type { z } from 'zod';
import { readRegistryEntries } from './file.js';

/** What the store keeps beside an entry's document (src/store/entry-types.ts). */
export interface StoreEntryMeta {
  /** 1 when created, + 1 on every replace: the admin API's ETag and If-Match. */
  readonly rev: number;
  /** Seconds since the epoch. */
  readonly createdAt: number;
  readonly updatedAt: number;
  /** The store's version when it was created: the listing order, stable while entries are added. */
  readonly sequence: number;
}

export type EntrySource = 'file' | 'store';

/** An entry as a registry holds it: its value, the document it was read from, and where that came from. */
export interface HeldEntry<E> {
  readonly key: string;
  readonly value: E;
  /** As declared: the file's JSON object, or the store's document (validated by the same schema). */
  readonly document: Readonly<Record<string, unknown>>;
  readonly source: EntrySource;
  /** A store entry's rev, times and sequence. */
  readonly stored?: StoreEntryMeta | undefined;
}

/** A file entry as a registry is built from it: key, value, and the JSON object it came from. */
export type FileEntry<E> = readonly [key: string, value: E, document?: unknown];

/**
 * What every registry has in common (CLIENTS_FILE, USERS_FILE, RESOURCES_FILE,
 * IDENTITY_PROVIDERS_FILE): entries by key, validated entry by entry with one message per
 * problem naming the file, the entry and the field. Two sources: the file (reloaded on
 * SIGHUP) and the store's entries (the admin API, followed by src/entries/). A server holds
 * one instance of each for its whole life; a change of either source merges both into a
 * new map swapped in one assignment, so a reader sees one state or the next, never a mix,
 * and never waits for the store.
 *
 * File entries win: a store entry claiming what a file entry claims (its key, or for users
 * also its sub) is shadowed while the file has it. The admin services never write such an
 * entry; a reload that adds a file entry claiming what the store holds refuses that entry.
 */
export abstract class Registry<E> {
  #file: ReadonlyMap<string, HeldEntry<E>>;
  #store: readonly HeldEntry<E>[] = [];
  #entries: ReadonlyMap<string, HeldEntry<E>>;

  protected constructor(entries: Iterable<FileEntry<E>>) {
    this.#file = new Map(
      [...entries].map(([key, value, document]) => [key, { key, value, document: documentOf(document), source: 'file' as const }]),
    );
    this.#entries = this.#file;
  }

  /** What an entry claims for itself: its key; a registry with a second unique field adds it (users: the sub). */
  protected claimsOf(key: string, _value: E): readonly string[] {
    return [key];
  }

  /** The entry registered under exactly this key. */
  protected entry(key: string): E | undefined {
    return this.#entries.get(key)?.value;
  }

  protected entries(): E[] {
    return [...this.#entries.values()].map((held) => held.value);
  }

  /** The merged map, a new object after every change (for indexes a registry derives from it). */
  protected get current(): ReadonlyMap<string, HeldEntry<E>> {
    return this.#entries;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The entry under `key` with its source and document (the admin API's view). */
  held(key: string): HeldEntry<E> | undefined {
    return this.#entries.get(key);
  }

  /** Every entry served: the file's in file order, then the store's in creation order. */
  listed(): HeldEntry<E>[] {
    return [...this.#entries.values()];
  }

  /** Whether a file entry claims `claim` (a key, or what claimsOf adds): the store must not hold it. */
  claimedByFile(claim: string): boolean {
    for (const held of this.#file.values()) if (this.claimsOf(held.key, held.value).includes(claim)) return true;
    return false;
  }

  /**
   * Takes over the file entries of `next`, loaded from the same kind of file (a reload).
   * An entry the previous file did not have that claims what a store entry claims is
   * refused (the store had it first); returns the keys refused. The rest is taken.
   */
  replace(next: this): string[] {
    const storeClaims = new Set(this.#store.flatMap((held) => this.claimsOf(held.key, held.value)));
    const file = new Map<string, HeldEntry<E>>();
    const refused: string[] = [];
    for (const held of next.#file.values()) {
      const added = !this.#file.has(held.key);
      if (added && this.claimsOf(held.key, held.value).some((claim) => storeClaims.has(claim))) refused.push(held.key);
      else file.set(held.key, held);
    }
    this.#file = file;
    this.#merge();
    return refused;
  }

  /** Takes the store's entries of this kind (in creation order); returns the keys shadowed by file entries. */
  replaceStoreEntries(entries: readonly Omit<HeldEntry<E>, 'source'>[]): string[] {
    this.#store = entries.map((entry) => ({ ...entry, source: 'store' as const }));
    return this.#merge();
  }

  #merge(): string[] {
    const merged = new Map(this.#file);
    const taken = new Set([...this.#file.values()].flatMap((held) => this.claimsOf(held.key, held.value)));
    const shadowed: string[] = [];
    for (const held of this.#store) {
      const claims = this.claimsOf(held.key, held.value);
      if (claims.some((claim) => taken.has(claim))) {
        shadowed.push(held.key);
        continue;
      }
      for (const claim of claims) taken.add(claim);
      merged.set(held.key, held);
    }
    this.#entries = merged;
    return shadowed;
  }
}

function documentOf(value: unknown): Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
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

/** An entry as validated, with how messages name it and the JSON object it was read from. */
export interface ParsedEntry<T> {
  readonly name: string;
  readonly value: T;
  readonly document: unknown;
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
    if (result.success) parsed.push({ name, value: result.data, document: entry });
    else problems.push(...result.error.issues.map((i) => `${source}: ${name}: ${i.path.join('.') || 'entry'}: ${i.message}`));
  });
  return { parsed, problems };
}

/** Reads a registry file's entries; a file that cannot be read or is not `{"<member>": [...]}` is one message naming it. */
export function readEntries(file: string, naming: EntryNaming, fail: (message: string) => Error): Promise<unknown[]> {
  return readRegistryEntries(file, naming.member, fail);
}

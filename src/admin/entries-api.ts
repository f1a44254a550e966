import type { HeldEntry, StoreEntryMeta } from '../registry/registry.js';
import type { EntryDocument, EntryKind, StoredEntry } from '../store/entry-types.js';
import { changedFields } from './audit.js';
import { entryNoun, type EntryWriter } from './entries.js';
import { entryTag, fileEntryTag, type IfMatch, requiredRevision } from './etags.js';
import { type Page, pageOf } from './paging.js';
import { NotFound } from './problems.js';

/**
 * The admin API over one kind of entry that has a file and the store and nothing else
 * (resources, identity providers, workload trusts): the file's entries listed first (file
 * order), then the store's (creation order); a file entry is read-only; GET answers an ETag,
 * PUT and DELETE honour If-Match. What each kind answers is its `view` of a document (a
 * provider's hides its secret).
 */

/** Where an entry comes from: its file, or the admin API (the store). */
export const ENTRY_SOURCES = ['file', 'admin'] as const;
export type EntrySource = (typeof ENTRY_SOURCES)[number];

export interface EntryService {
  create(document: EntryDocument): Promise<StoredEntry>;
  replace(id: string, document: EntryDocument, expectedRev?: number): Promise<StoredEntry>;
  delete(id: string, expectedRev?: number): Promise<unknown>;
}

export interface EntriesApiOptions {
  readonly kind: EntryKind;
  /** The entries served (file and store, merged); undefined: only the store's are known (read from it). */
  readonly registry: { held(key: string): HeldEntry<unknown> | undefined; listed(): HeldEntry<unknown>[] } | undefined;
  readonly service: EntryService;
  readonly writer: EntryWriter;
  /** What an entry's document answers as (without source and times). */
  view(document: Readonly<Record<string, unknown>>): Record<string, unknown>;
}

export type EntryView = Record<string, unknown> & { readonly source: EntrySource };

/** An entry as answered, its ETag, and what the change wrote (names only). */
export interface EntryAnswer {
  readonly view: EntryView;
  readonly etag: string;
  readonly fields: readonly string[];
}

export class EntriesApi {
  constructor(private readonly options: EntriesApiOptions) {}

  view(document: Readonly<Record<string, unknown>>, stored: StoreEntryMeta | undefined): EntryView {
    return {
      ...this.options.view(document),
      source: stored ? 'admin' : 'file',
      ...(stored ? { created_at: stored.createdAt, updated_at: stored.updatedAt } : {}),
    };
  }

  async list(query: { source?: EntrySource | undefined; limit: number; cursor?: string | undefined }): Promise<Page<EntryView>> {
    const held = this.options.registry?.listed() ?? (await this.storeEntries());
    const items = held
      .map((entry, index) => ({
        position: entry.stored ? [1, entry.stored.sequence] : [0, index],
        view: this.view(entry.document, entry.stored),
      }))
      .filter((item) => query.source === undefined || item.view.source === query.source);
    const page = pageOf(items, (item) => item.position, query);
    return { items: page.items.map((item) => item.view), ...(page.next === undefined ? {} : { next: page.next }) };
  }

  async get(id: string): Promise<EntryAnswer> {
    const held = this.options.registry ? this.options.registry.held(id) : await this.storeEntry(id);
    if (!held) throw new NotFound(`no ${entryNoun(this.options.kind, id)}`);
    const etag = held.stored ? entryTag(this.options.kind, held.stored.rev) : fileEntryTag(held.document);
    return { view: this.view(held.document, held.stored), etag, fields: [] };
  }

  async create(document: EntryDocument): Promise<EntryAnswer> {
    return this.answer(await this.options.service.create(document), Object.keys(document));
  }

  /** PUT: the entry replaced as a whole. */
  async replace(id: string, document: EntryDocument, ifMatch: IfMatch | undefined): Promise<EntryAnswer> {
    const rev = requiredRevision(ifMatch, this.options.kind);
    const before = await this.options.writer.find(this.options.kind, id);
    const entry = await this.options.service.replace(id, document, rev);
    const fields = changedFields(before && this.options.view(before.document), this.options.view(entry.document));
    // A secret written again is a change whatever its value (never compared: it is sealed afresh).
    return this.answer(entry, 'client_secret' in document ? [...new Set([...fields, 'client_secret'])] : fields);
  }

  async delete(id: string, ifMatch: IfMatch | undefined): Promise<void> {
    await this.options.service.delete(id, requiredRevision(ifMatch, this.options.kind));
  }

  private answer(entry: StoredEntry, fields: readonly string[]): EntryAnswer {
    return { view: this.view(entry.document, entry), etag: entryTag(this.options.kind, entry.rev), fields };
  }

  private async storeEntry(id: string): Promise<HeldEntry<unknown> | undefined> {
    const entry = await this.options.writer.find(this.options.kind, id);
    return entry && { key: id, value: undefined, document: entry.document, source: 'store', stored: entry };
  }

  private async storeEntries(): Promise<HeldEntry<unknown>[]> {
    return this.options.writer
      .all(this.options.kind)
      .map((entry) => ({ key: entry.id, value: undefined, document: entry.document, source: 'store', stored: entry }));
  }
}

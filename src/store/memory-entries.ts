import { EventEmitter } from 'node:events';
import { type Clock, nowSeconds } from '../clock.js';
import {
  ENTRY_KINDS,
  type EntryChange,
  type EntryChangeListener,
  type EntryCreation,
  type EntryDeletion,
  type EntryDocument,
  type EntryKind,
  type EntryPage,
  type EntryReplacement,
  type EntrySnapshot,
  type EntryStore,
  type EntrySubscription,
  type StoredEntry,
} from './entry-types.js';

/**
 * The entry store of one process (`npm run dev`): each write is one synchronous step, and
 * the change channel is an in-process EventEmitter whose listeners hear of a change after
 * the write resolved, as a Redis subscriber would.
 */
export class MemoryEntries implements EntryStore {
  private readonly kinds = new Map<EntryKind, Map<string, StoredEntry>>(ENTRY_KINDS.map((kind) => [kind, new Map()]));
  private version = 0;
  private readonly channel = new EventEmitter();

  constructor(private readonly clock: Clock) {
    this.channel.setMaxListeners(0);
  }

  async createEntry(kind: EntryKind, id: string, document: EntryDocument): Promise<EntryCreation> {
    const entries = this.of(kind);
    if (entries.has(id)) return { status: 'exists' };
    const now = nowSeconds(this.clock);
    const version = this.bump(kind, id);
    const entry = frozen({ kind, id, document, rev: 1, createdAt: now, updatedAt: now, sequence: version });
    entries.set(id, entry);
    return { status: 'created', entry, version };
  }

  async replaceEntry(kind: EntryKind, id: string, document: EntryDocument, expectedRev?: number): Promise<EntryReplacement> {
    const entries = this.of(kind);
    const current = entries.get(id);
    if (!current) return { status: 'not_found' };
    if (expectedRev !== undefined && expectedRev !== current.rev) return { status: 'stale', rev: current.rev };
    const version = this.bump(kind, id);
    const entry = frozen({ ...current, document, rev: current.rev + 1, updatedAt: nowSeconds(this.clock) });
    entries.set(id, entry);
    return { status: 'replaced', entry, version };
  }

  async deleteEntry(kind: EntryKind, id: string, expectedRev?: number): Promise<EntryDeletion> {
    const entries = this.of(kind);
    const current = entries.get(id);
    if (!current) return { status: 'not_found' };
    if (expectedRev !== undefined && expectedRev !== current.rev) return { status: 'stale', rev: current.rev };
    entries.delete(id);
    return { status: 'deleted', version: this.bump(kind, id) };
  }

  async getEntry(kind: EntryKind, id: string): Promise<StoredEntry | undefined> {
    return this.of(kind).get(id);
  }

  async listEntries(kind: EntryKind, page: { readonly after?: number | undefined; readonly limit: number }): Promise<EntryPage> {
    const after = page.after ?? 0;
    const following = [...this.of(kind).values()].filter((e) => e.sequence > after).sort((a, b) => a.sequence - b.sequence);
    const entries = following.slice(0, page.limit);
    const last = entries.at(-1);
    return { entries, next: following.length > entries.length && last ? last.sequence : undefined };
  }

  async entriesVersion(): Promise<number> {
    return this.version;
  }

  async readAllEntries(): Promise<EntrySnapshot> {
    const entries = [...this.kinds.values()].flatMap((kind) => [...kind.values()]).sort((a, b) => a.sequence - b.sequence);
    return { version: this.version, entries, unreadable: [] };
  }

  subscribeToEntryChanges(listener: EntryChangeListener): EntrySubscription {
    const onChange = (change: EntryChange) => listener.onChange(change);
    this.channel.on('change', onChange);
    queueMicrotask(() => listener.onSubscribed());
    return {
      close: async () => {
        this.channel.off('change', onChange);
      },
    };
  }

  private of(kind: EntryKind): Map<string, StoredEntry> {
    return this.kinds.get(kind) as Map<string, StoredEntry>;
  }

  /** The next version, announced once the caller's write has resolved. */
  private bump(kind: EntryKind, id: string): number {
    this.version += 1;
    const change: EntryChange = { version: this.version, kind, id };
    setImmediate(() => this.channel.emit('change', change));
    return this.version;
  }
}

/** A copy the caller cannot change under the store, holding JSON only (what Redis would keep). */
function frozen(entry: StoredEntry): StoredEntry {
  return Object.freeze({ ...entry, document: deepFrozen(JSON.parse(JSON.stringify(entry.document)) as EntryDocument) });
}

function deepFrozen<T>(value: T): T {
  if (typeof value === 'object' && value !== null) for (const nested of Object.values(value)) deepFrozen(nested);
  return Object.freeze(value);
}

import type { StoreEntryMeta } from '../registry/registry.js';

/**
 * The entries an operator manages at runtime (the admin API): clients, resources, identity
 * providers, workload trusts, local users, and per-subject marks. They are configuration,
 * not grant data: shared by every instance, kept without expiry, each write one atomic step
 * that also bumps the store's version and announces the change (Redis: SPUBLISH in the same
 * script), so every instance's in-process copy (src/entries/) follows within a second.
 *
 * The store knows nothing of the files: keeping a file's ids out of the store is the
 * caller's (the admin services check the merged registries first).
 */

export const ENTRY_KINDS = ['client', 'resource', 'provider', 'workload_trust', 'user', 'subject'] as const;
export type EntryKind = (typeof ENTRY_KINDS)[number];

export function isEntryKind(value: string): value is EntryKind {
  return (ENTRY_KINDS as readonly string[]).includes(value);
}

/** An entry as written: validated JSON (the caller's schema), never a secret in clear. */
export type EntryDocument = Readonly<Record<string, unknown>>;

export interface StoredEntry extends StoreEntryMeta {
  readonly kind: EntryKind;
  readonly id: string;
  readonly document: EntryDocument;
}

/** `version` (created, replaced, deleted): the store's version the write made, as announced. */
export type EntryCreation =
  { readonly status: 'created'; readonly entry: StoredEntry; readonly version: number } | { readonly status: 'exists' };

export type EntryReplacement =
  | { readonly status: 'replaced'; readonly entry: StoredEntry; readonly version: number }
  | { readonly status: 'not_found' }
  /** `expectedRev` was not the entry's `rev` (If-Match): nothing written. */
  | { readonly status: 'stale'; readonly rev: number };

export type EntryDeletion =
  | { readonly status: 'deleted'; readonly version: number }
  | { readonly status: 'not_found' }
  | { readonly status: 'stale'; readonly rev: number };

/** One page of a kind's entries, in creation order; `next`: the sequence to pass as `after` for the next page. */
export interface EntryPage {
  readonly entries: readonly StoredEntry[];
  readonly next: number | undefined;
}

/** Every entry of every kind, with the version they were read at (one atomic read). */
export interface EntrySnapshot {
  readonly version: number;
  readonly entries: readonly StoredEntry[];
  /** Values the store holds but cannot read (`<kind> <id>`), left out. */
  readonly unreadable: readonly string[];
}

/** What one write announced: the version it made, and the entry it touched. */
export interface EntryChange {
  readonly version: number;
  readonly kind: EntryKind;
  readonly id: string;
}

/** Told what the change channel brings; called on the store's own schedule, must not throw. */
export interface EntryChangeListener {
  /** A change was announced. Announcements can be lost (a reconnect, a failover), never made up. */
  onChange(change: EntryChange): void;
  /** The subscription is in place (again): announcements made before it may have been missed. */
  onSubscribed(): void;
  /** Something on the channel that is not a change (never from this server). */
  onMalformed(message: string): void;
}

export interface EntrySubscription {
  close(): Promise<void>;
}

/**
 * The entry store. Every write is one atomic step: it checks existence (and `expectedRev`,
 * the If-Match of the API), writes, bumps the version, lists the entry for paging and
 * announces the change; it resolves once acknowledged (with REDIS_MIN_REPLICAS_ACK, by the
 * replicas too), else rejects with StoreUnavailableError. Of concurrent creates of one id
 * exactly one is `created`; of concurrent replaces with one `expectedRev` exactly one is
 * `replaced`.
 */
export interface EntryStore {
  createEntry(kind: EntryKind, id: string, document: EntryDocument): Promise<EntryCreation>;
  /** `expectedRev` undefined: whatever the current rev. Keeps `createdAt` and `sequence`; `rev` + 1. */
  replaceEntry(kind: EntryKind, id: string, document: EntryDocument, expectedRev?: number): Promise<EntryReplacement>;
  deleteEntry(kind: EntryKind, id: string, expectedRev?: number): Promise<EntryDeletion>;
  getEntry(kind: EntryKind, id: string): Promise<StoredEntry | undefined>;
  /** Entries created after sequence `after` (default: from the first), at most `limit`; stable while entries are added. */
  listEntries(kind: EntryKind, page: { readonly after?: number | undefined; readonly limit: number }): Promise<EntryPage>;
  /** The version: bumped by every write (0 before the first). */
  entriesVersion(): Promise<number>;
  readAllEntries(): Promise<EntrySnapshot>;
  /**
   * Follows the change announcements (Redis: a connection of its own, subscribed with
   * SSUBSCRIBE to the `{entries}` shard channel; it reconnects by itself, and says so through
   * `onSubscribed`). Never rejects: an unreachable store just has not subscribed yet.
   */
  subscribeToEntryChanges(listener: EntryChangeListener): EntrySubscription;
}

/** The announcement of a change on the channel: `<version> <kind> <id>`. */
export function changeMessage(change: EntryChange): string {
  return `${change.version} ${change.kind} ${change.id}`;
}

/** A channel message read back; undefined for anything else. */
export function parseChangeMessage(message: string): EntryChange | undefined {
  const match = /^(\d{1,15}) ([a-z_]+) (\S[^\r\n]*)$/.exec(message);
  if (!match) return undefined;
  const [, version, kind, id] = match as unknown as [string, string, string, string];
  return isEntryKind(kind) ? { version: Number(version), kind, id } : undefined;
}

/** An entry as the store keeps it: `{"rev":…,"created_at":…,"updated_at":…,"seq":…,"doc":{…}}` (the Lua scripts write it). */
export function storedValue(meta: StoreEntryMeta, document: EntryDocument): string {
  return `{"rev":${meta.rev},"created_at":${meta.createdAt},"updated_at":${meta.updatedAt},"seq":${meta.sequence},"doc":${JSON.stringify(document)}}`;
}

/** A stored value read back; undefined when it is not one. */
export function entryOfValue(kind: EntryKind, id: string, value: string): StoredEntry | undefined {
  try {
    const parsed = JSON.parse(value) as Record<string, unknown>;
    const { rev, created_at: createdAt, updated_at: updatedAt, seq: sequence, doc } = parsed;
    const numbers = [rev, createdAt, updatedAt, sequence];
    if (!numbers.every((n) => typeof n === 'number' && Number.isSafeInteger(n))) return undefined;
    if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return undefined;
    return {
      kind,
      id,
      document: doc as EntryDocument,
      rev: rev as number,
      createdAt: createdAt as number,
      updatedAt: updatedAt as number,
      sequence: sequence as number,
    };
  } catch {
    return undefined;
  }
}

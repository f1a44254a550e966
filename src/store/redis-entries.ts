import { Cluster } from 'ioredis';
import { nowSeconds } from '../clock.js';
import {
  ENTRY_KINDS,
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
  entryOfValue,
  parseChangeMessage,
  type StoredEntry,
} from './entry-types.js';
import { closeRedisClient, type RedisClient } from './redis-connection.js';
import type { ScriptCommands } from './redis-scripts.js';

/** What RedisStore lends the entries: its scripts and client, and a way to open a subscriber connection. */
export interface EntryCommands extends ScriptCommands {
  readonly client: RedisClient;
  /** A new client for the change channel, not yet connected (a Cluster one with sharded subscribers). */
  openSubscriber(): RedisClient;
}

/** How soon a subscription that failed on a connected client is tried again. */
const RESUBSCRIBE_MS = 1000;

/**
 * The entry store on Redis (the layout in src/store/lua-entries.ts). Writes are acknowledged
 * like every single-use write (REDIS_MIN_REPLICAS_ACK: followed by WAIT), except refusals the
 * primary proves from what it holds (`exists`, `stale`), which write nothing.
 */
export class RedisEntries implements EntryStore {
  constructor(private readonly redis: EntryCommands) {}

  async createEntry(kind: EntryKind, id: string, document: EntryDocument): Promise<EntryCreation> {
    const keys = this.redis.keys;
    const json = JSON.stringify(document);
    const now = nowSeconds(this.redis.clock);
    const reply = await this.redis.call('create entry', () =>
      this.redis.acknowledgedScript<[0] | [1, number]>(
        'createEntry',
        [keys.entries(kind), keys.entryIds(kind), keys.entriesVersion(), keys.entryChanges()],
        [id, json, now, kind],
        (replied) => replied[0] === 0,
      ),
    );
    if (reply[0] === 0) return { status: 'exists' };
    const entry = { kind, id, document: JSON.parse(json) as EntryDocument, rev: 1, createdAt: now, updatedAt: now, sequence: reply[1] };
    return { status: 'created', entry, version: reply[1] };
  }

  async replaceEntry(kind: EntryKind, id: string, document: EntryDocument, expectedRev?: number): Promise<EntryReplacement> {
    const keys = this.redis.keys;
    const json = JSON.stringify(document);
    const now = nowSeconds(this.redis.clock);
    const reply = await this.redis.call('replace entry', () =>
      this.redis.acknowledgedScript<[0] | [1, number, number, number, number] | [2, number]>(
        'replaceEntry',
        [keys.entries(kind), keys.entriesVersion(), keys.entryChanges()],
        [id, json, now, kind, expectedRev === undefined ? '' : String(expectedRev)],
        (replied) => replied[0] === 2,
      ),
    );
    if (reply[0] === 0) return { status: 'not_found' };
    if (reply[0] === 2) return { status: 'stale', rev: reply[1] };
    const [, version, rev, createdAt, sequence] = reply;
    const entry = { kind, id, document: JSON.parse(json) as EntryDocument, rev, createdAt, updatedAt: now, sequence };
    return { status: 'replaced', entry, version };
  }

  async deleteEntry(kind: EntryKind, id: string, expectedRev?: number): Promise<EntryDeletion> {
    const keys = this.redis.keys;
    const reply = await this.redis.call('delete entry', () =>
      this.redis.acknowledgedScript<[0] | [1, number] | [2, number]>(
        'deleteEntry',
        [keys.entries(kind), keys.entryIds(kind), keys.entriesVersion(), keys.entryChanges()],
        [id, kind, expectedRev === undefined ? '' : String(expectedRev)],
        (replied) => replied[0] === 2,
      ),
    );
    if (reply[0] === 0) return { status: 'not_found' };
    return reply[0] === 2 ? { status: 'stale', rev: reply[1] } : { status: 'deleted', version: reply[1] };
  }

  async getEntry(kind: EntryKind, id: string): Promise<StoredEntry | undefined> {
    const value = await this.redis.call('read entry', () => this.redis.client.hget(this.redis.keys.entries(kind), id));
    return value === null ? undefined : entryOfValue(kind, id, value);
  }

  async listEntries(kind: EntryKind, page: { readonly after?: number | undefined; readonly limit: number }): Promise<EntryPage> {
    const keys = this.redis.keys;
    const [more, ...pairs] = await this.redis.call('list entries', () =>
      this.redis.script<[number, ...string[]]>('listEntries', [keys.entryIds(kind), keys.entries(kind)], [page.after ?? 0, page.limit]),
    );
    const entries = readPairs(kind, pairs).entries;
    const last = entries.at(-1);
    return { entries, next: more === 1 && last ? last.sequence : undefined };
  }

  async entriesVersion(): Promise<number> {
    return Number((await this.redis.call('read entries version', () => this.redis.client.get(this.redis.keys.entriesVersion()))) ?? 0);
  }

  async readAllEntries(): Promise<EntrySnapshot> {
    const keys = this.redis.keys;
    const [version, ...kinds] = await this.redis.call('read entries', () =>
      this.redis.script<[string | null, ...string[][]]>(
        'readEntries',
        [keys.entriesVersion(), ...ENTRY_KINDS.map((kind) => keys.entries(kind))],
        [],
      ),
    );
    const read = ENTRY_KINDS.map((kind, i) => readPairs(kind, kinds[i] ?? []));
    return {
      version: Number(version ?? 0),
      entries: read.flatMap((r) => r.entries).sort((a, b) => a.sequence - b.sequence),
      unreadable: read.flatMap((r) => r.unreadable),
    };
  }

  subscribeToEntryChanges(listener: EntryChangeListener): EntrySubscription {
    const channel = this.redis.keys.entryChanges();
    const client = this.redis.openSubscriber();
    let closed = false;
    let subscribed = false;
    client.on('smessage', (from: string, message: string) => {
      if (from !== channel) return;
      const change = parseChangeMessage(message);
      if (change) listener.onChange(change);
      else listener.onMalformed(message);
    });
    const subscribe = () => {
      if (closed) return;
      client.ssubscribe(channel).then(
        () => {
          subscribed = true;
          listener.onSubscribed();
        },
        () => {
          if (client.status === 'ready') setTimeout(subscribe, RESUBSCRIBE_MS).unref();
        },
      );
    };
    if (client instanceof Cluster) {
      // Its sharded subscribers keep the channel across topology changes (a promoted replica,
      // a resharding): subscribe once, then hear when they have subscribed again.
      client.on('ready', () => subscribed || subscribe());
      client.on('subscribersReady', () => subscribed && !closed && listener.onSubscribed());
    } else {
      // A reconnected connection subscribes anew (autoResubscribe is off for it).
      client.on('ready', subscribe);
    }
    client.connect().catch(() => undefined);
    return {
      close: async () => {
        closed = true;
        await closeRedisClient(client);
      },
    };
  }
}

/** `[id, value, id, value, …]` of one kind, read; values that are not entries are named, not thrown. */
function readPairs(kind: EntryKind, pairs: readonly string[]): { entries: StoredEntry[]; unreadable: string[] } {
  const entries: StoredEntry[] = [];
  const unreadable: string[] = [];
  for (let i = 0; i + 1 < pairs.length; i += 2) {
    const id = pairs[i] as string;
    const entry = entryOfValue(kind, id, pairs[i + 1] as string);
    if (entry) entries.push(entry);
    else unreadable.push(`${kind} ${id}`);
  }
  return { entries: entries.sort((a, b) => a.sequence - b.sequence), unreadable };
}

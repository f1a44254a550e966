import {
  ENTRY_KINDS,
  type EntryChange,
  type EntryKind,
  type EntryStore,
  type EntrySubscription,
  type StoredEntry,
} from '../store/entry-types.js';

/**
 * The in-process copy of the store's entries, on every instance. Three ways keep it current:
 * the change channel (a write announces `<version> <kind> <id>`: the entry is read and
 * applied when the version is the next one, else a snapshot is taken), a snapshot every time
 * the subscription is (re)made (what was announced while it was down is lost), and a check of
 * the version every ENTRIES_SYNC_INTERVAL seconds (a snapshot when it differs: a message lost
 * in a failover costs one interval). Readers (the registries, through listeners per kind)
 * never wait for the store; with the store down they keep what they last saw.
 *
 * Work runs one step at a time, in order, so a slow read never overwrites a newer state.
 */

export interface EntrySyncLog {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
}

export interface EntrySyncOptions {
  /** ENTRIES_SYNC_INTERVAL: seconds between checks of the store's version. */
  readonly intervalSeconds: number;
}

/** Told a kind's entries (in creation order) whenever they change, and once at the first snapshot. */
export type EntriesListener = (entries: readonly StoredEntry[]) => void;

const SILENT: EntrySyncLog = { info: () => undefined, warn: () => undefined };

export class EntrySync {
  #version: number | undefined;
  readonly #kinds = new Map<EntryKind, ReadonlyMap<string, StoredEntry>>(ENTRY_KINDS.map((kind) => [kind, new Map()]));
  readonly #listeners = new Map<EntryKind, Set<EntriesListener>>(ENTRY_KINDS.map((kind) => [kind, new Set()]));
  #work: Promise<void> = Promise.resolve();
  #snapshotQueued = false;
  #subscription: EntrySubscription | undefined;
  #timer: NodeJS.Timeout | undefined;
  #log: EntrySyncLog = SILENT;
  #reachable = true;
  #stopped = false;
  #subscribed = false;

  constructor(
    private readonly store: EntryStore,
    private readonly options: EntrySyncOptions,
  ) {}

  /** Starts following the store (once; later calls do nothing). Never throws: an unreachable store is caught up with. */
  start(log: EntrySyncLog = SILENT): void {
    if (this.#subscription || this.#stopped) return;
    this.#log = log;
    this.#subscription = this.store.subscribeToEntryChanges({
      onChange: (change) => this.#enqueue(() => this.#applyChange(change)),
      onSubscribed: () => {
        this.#subscribed = true;
        this.#snapshotSoon();
      },
      onMalformed: (message) =>
        this.#log.warn({ length: message.length }, 'entries: a message on the change channel that is not a change, ignored'),
    });
    this.#timer = setInterval(() => this.#enqueue(() => this.#check()), this.options.intervalSeconds * 1000);
    this.#timer.unref();
  }

  /**
   * Takes a snapshot now (the start, once the store is connected): true once the copy holds
   * one, false when the store did not answer, or not within `timeoutMs` (the copy then fills
   * when it answers).
   */
  async ready(timeoutMs: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)));
    try {
      await Promise.race([this.#enqueue(() => this.#snapshot()), timeout]);
      return this.#version !== undefined;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Whether the change channel's subscription has been in place (then each change arrives as it is made). */
  get subscribed(): boolean {
    return this.#subscribed;
  }

  /** Resolves once the work queued so far (changes, snapshots) is done. */
  idle(): Promise<void> {
    return this.#work;
  }

  /** The store's version this copy is at; undefined before the first snapshot. */
  get version(): number | undefined {
    return this.#version;
  }

  /** A kind's entries as last seen, in creation order. */
  entries(kind: EntryKind): StoredEntry[] {
    return [...(this.#kinds.get(kind)?.values() ?? [])].sort((a, b) => a.sequence - b.sequence);
  }

  entry(kind: EntryKind, id: string): StoredEntry | undefined {
    return this.#kinds.get(kind)?.get(id);
  }

  /** Calls `listener` with the kind's entries now and on every change; returns how to stop. */
  follow(kind: EntryKind, listener: EntriesListener): () => void {
    this.#listeners.get(kind)?.add(listener);
    this.#notify(kind, listener);
    return () => this.#listeners.get(kind)?.delete(listener);
  }

  /**
   * A write this instance just made (the admin services): applied at once, so the next
   * request here sees it without waiting for the channel. Resolves once applied (or, with a
   * version further ahead, once a snapshot was tried).
   */
  applied(change: EntryChange, entry: StoredEntry | undefined): Promise<void> {
    return this.#enqueue(async () => {
      if (this.#version === undefined || change.version > this.#version + 1) return this.#snapshot();
      if (change.version === this.#version + 1) this.#set(change, entry);
    });
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearInterval(this.#timer);
    await this.#subscription?.close();
    await this.#work;
  }

  #enqueue(step: () => Promise<void>): Promise<void> {
    const run = this.#work.then(async () => {
      if (this.#stopped) return;
      try {
        await step();
        this.#answered();
      } catch (err) {
        this.#unanswered(err as Error);
      }
    });
    this.#work = run;
    return run;
  }

  #snapshotSoon(): void {
    if (this.#snapshotQueued) return;
    this.#snapshotQueued = true;
    void this.#enqueue(() => this.#snapshot());
  }

  async #applyChange(change: EntryChange): Promise<void> {
    if (this.#version === undefined || change.version > this.#version + 1) return this.#snapshot();
    // Already seen (in a snapshot, or applied as this instance's own write).
    if (change.version <= this.#version) return;
    this.#set(change, await this.store.getEntry(change.kind, change.id));
  }

  /** The version differs (a message lost, a failover that lost writes, a flushed store): take everything again. */
  async #check(): Promise<void> {
    if ((await this.store.entriesVersion()) !== this.#version) await this.#snapshot();
  }

  async #snapshot(): Promise<void> {
    this.#snapshotQueued = false;
    const snapshot = await this.store.readAllEntries();
    for (const unreadable of snapshot.unreadable)
      this.#log.warn({ entry: unreadable }, 'entries: a stored value that is not an entry, skipped');
    const first = this.#version === undefined;
    for (const kind of ENTRY_KINDS) {
      const next = new Map(snapshot.entries.filter((e) => e.kind === kind).map((e) => [e.id, e]));
      const changed = first || !sameEntries(this.#kinds.get(kind), next);
      this.#kinds.set(kind, next);
      if (changed) this.#notifyAll(kind);
    }
    this.#version = snapshot.version;
  }

  #set(change: EntryChange, entry: StoredEntry | undefined): void {
    const next = new Map(this.#kinds.get(change.kind));
    if (entry) next.set(change.id, entry);
    else next.delete(change.id);
    this.#kinds.set(change.kind, next);
    this.#version = change.version;
    this.#notifyAll(change.kind);
  }

  #notifyAll(kind: EntryKind): void {
    for (const listener of this.#listeners.get(kind) ?? []) this.#notify(kind, listener);
  }

  #notify(kind: EntryKind, listener: EntriesListener): void {
    try {
      listener(this.entries(kind));
    } catch (err) {
      this.#log.warn({ kind, err: { message: (err as Error).message } }, 'entries: applying a change failed');
    }
  }

  /** One line when the store stops answering, one when it answers again. */
  #unanswered(err: Error): void {
    if (!this.#reachable) return;
    this.#reachable = false;
    this.#log.warn(
      { err: { message: err.message } },
      'entries: the store does not answer; serving the entries last seen (and the files) until it does',
    );
  }

  #answered(): void {
    if (this.#reachable) return;
    this.#reachable = true;
    this.#log.info({ version: this.#version }, 'entries: the store answers again; caught up');
  }
}

function sameEntries(before: ReadonlyMap<string, StoredEntry> | undefined, after: ReadonlyMap<string, StoredEntry>): boolean {
  if (!before || before.size !== after.size) return false;
  for (const [id, entry] of after) {
    const previous = before.get(id);
    if (!previous || previous.rev !== entry.rev || previous.sequence !== entry.sequence) return false;
  }
  return true;
}

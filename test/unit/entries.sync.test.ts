import t, { type Test } from 'tap';
import { EntrySync } from '../../src/entries/sync.js';
import { StoreUnavailableError } from '../../src/errors/index.js';
import type { EntryChangeListener, EntryStore, StoredEntry } from '../../src/store/entry-types.js';
import { MemoryEntries } from '../../src/store/memory-entries.js';
import { until } from '../helpers/sign-in.js';

/**
 * The in-process copy of the store's entries (src/entries/sync.ts) over a store the test
 * controls: the channel can lose messages or carry garbage, and the store can stop answering.
 */

/** A memory entry store whose channel the test drives by hand, and which can be made unreachable. */
class ControlledStore implements EntryStore {
  readonly inner = new MemoryEntries(() => 1_800_000_000_000);
  listener: EntryChangeListener | undefined;
  down = false;
  readonly calls: string[] = [];

  private gate<T>(name: string, work: () => Promise<T>): Promise<T> {
    this.calls.push(name);
    return this.down ? Promise.reject(new StoreUnavailableError('redis read entries failed: connection closed')) : work();
  }

  createEntry: EntryStore['createEntry'] = (...args) => this.inner.createEntry(...args);
  replaceEntry: EntryStore['replaceEntry'] = (...args) => this.inner.replaceEntry(...args);
  deleteEntry: EntryStore['deleteEntry'] = (...args) => this.inner.deleteEntry(...args);
  listEntries: EntryStore['listEntries'] = (...args) => this.inner.listEntries(...args);
  getEntry: EntryStore['getEntry'] = (...args) => this.gate('getEntry', () => this.inner.getEntry(...args));
  entriesVersion: EntryStore['entriesVersion'] = () => this.gate('entriesVersion', () => this.inner.entriesVersion());
  readAllEntries: EntryStore['readAllEntries'] = () => this.gate('readAllEntries', () => this.inner.readAllEntries());

  subscribeToEntryChanges(listener: EntryChangeListener) {
    this.listener = listener;
    return { close: async () => undefined };
  }
}

interface Logged {
  readonly level: string;
  readonly message: string;
  readonly fields: Record<string, unknown>;
}

function started(t: Test, store: EntryStore, intervalSeconds = 3600): { sync: EntrySync; lines: Logged[] } {
  const lines: Logged[] = [];
  const sync = new EntrySync(store, { intervalSeconds });
  sync.start({
    info: (fields, message) => lines.push({ level: 'info', message, fields }),
    warn: (fields, message) => lines.push({ level: 'warn', message, fields }),
  });
  t.teardown(() => sync.stop());
  return { sync, lines };
}

const ids = (entries: readonly StoredEntry[]) => entries.map((e) => e.id);

t.test('follows a memory store: each change applied from its message, the kinds apart, listeners told', async (t) => {
  const store = new MemoryEntries(() => 1_800_000_000_000);
  const { sync } = started(t, store);
  t.equal(await sync.ready(1000), true, 'the first snapshot');
  const seen: string[][] = [];
  sync.follow('client', (entries) => seen.push(ids(entries)));
  await store.createEntry('client', 'web', { client_id: 'web' });
  await store.createEntry('resource', 'https://api.example.com/', { resource: 'https://api.example.com/' });
  await store.createEntry('client', 'cli', { client_id: 'cli' });
  await until(() => sync.version === 3, 'version 3');
  t.same(ids(sync.entries('client')), ['web', 'cli'], 'in creation order');
  t.same(ids(sync.entries('resource')), ['https://api.example.com/']);
  await store.deleteEntry('client', 'web');
  await until(() => sync.version === 4, 'version 4');
  t.same(seen, [[], ['web'], ['web', 'cli'], ['cli']], 'told now, and on each change of its kind only');
});

t.test('a message of the next version reads that entry; one already seen reads nothing; a gap takes a snapshot', async (t) => {
  const store = new ControlledStore();
  const { sync } = started(t, store);
  await sync.ready(1000);
  await store.inner.createEntry('client', 'web', { client_id: 'web' });
  store.calls.length = 0;
  store.listener?.onChange({ version: 1, kind: 'client', id: 'web' });
  await until(() => sync.version === 1, 'version 1');
  t.same(store.calls, ['getEntry'], 'the next version: the one entry read');
  store.listener?.onChange({ version: 1, kind: 'client', id: 'web' });
  await store.inner.createEntry('client', 'a', {});
  await store.inner.createEntry('client', 'b', {});
  store.listener?.onChange({ version: 3, kind: 'client', id: 'b' });
  await until(() => sync.version === 3, 'version 3');
  t.same(store.calls, ['getEntry', 'readAllEntries'], 'a message seen before reads nothing; version 2 was lost: a snapshot');
  t.same(ids(sync.entries('client')), ['web', 'a', 'b']);
});

t.test('a message that is not a change: one line, and the copy goes on', async (t) => {
  const store = new ControlledStore();
  const { sync, lines } = started(t, store);
  await sync.ready(1000);
  store.listener?.onMalformed('{"not": "a change"}');
  await store.inner.createEntry('client', 'web', {});
  store.listener?.onChange({ version: 1, kind: 'client', id: 'web' });
  await until(() => sync.version === 1, 'version 1');
  t.same(lines, [
    { level: 'warn', message: 'entries: a message on the change channel that is not a change, ignored', fields: { length: 19 } },
  ]);
});

t.test('a lost message is caught by the version check, every interval', async (t) => {
  const store = new ControlledStore();
  const { sync } = started(t, store, 1);
  await sync.ready(1000);
  await store.inner.createEntry('client', 'web', { client_id: 'web' });
  const from = Date.now();
  await until(() => sync.version === 1, 'the check');
  t.ok(Date.now() - from < 1500, `caught up ${Date.now() - from} ms later, within one interval`);
  t.same(ids(sync.entries('client')), ['web']);
});

t.test('a store down at start: one line, the files alone; caught up once it answers, and told so', async (t) => {
  const store = new ControlledStore();
  store.down = true;
  const { sync, lines } = started(t, store, 1);
  t.equal(await sync.ready(1000), false, 'no snapshot: the start goes on');
  t.equal(sync.version, undefined);
  await store.inner.createEntry('client', 'web', { client_id: 'web' });
  await new Promise((resolve) => setTimeout(resolve, 1200));
  t.same(
    lines.map((line) => line.message),
    ['entries: the store does not answer; serving the entries last seen (and the files) until it does'],
    'one line, not one per check',
  );
  store.down = false;
  await until(() => sync.version === 1, 'the catch-up');
  t.same(ids(sync.entries('client')), ['web']);
  t.same(lines.at(-1), { level: 'info', message: 'entries: the store answers again; caught up', fields: { version: 1 } });
  t.equal(await sync.ready(10), true);
});

t.test('a (re)subscription takes a snapshot; a listener that throws is logged, the others still told', async (t) => {
  const store = new ControlledStore();
  const { sync, lines } = started(t, store);
  await sync.ready(1000);
  const told: string[][] = [];
  sync.follow('user', () => {
    throw new Error('broken listener');
  });
  sync.follow('user', (entries) => told.push(ids(entries)));
  await store.inner.createEntry('user', 'alice', {});
  store.calls.length = 0;
  store.listener?.onSubscribed();
  await until(() => sync.version === 1, 'the snapshot');
  t.same(store.calls, ['readAllEntries']);
  t.same(told, [[], ['alice']]);
  t.match(lines.at(-1), {
    level: 'warn',
    message: 'entries: applying a change failed',
    fields: { kind: 'user', err: { message: 'broken listener' } },
  });
});

t.test("this instance's own write is applied at once, before its message", async (t) => {
  const store = new ControlledStore();
  const { sync } = started(t, store);
  await sync.ready(1000);
  const created = await store.inner.createEntry('client', 'web', { client_id: 'web' });
  if (created.status !== 'created') throw new Error('not created');
  await sync.applied({ version: created.version, kind: 'client', id: 'web' }, created.entry);
  t.same(ids(sync.entries('client')), ['web']);
  store.calls.length = 0;
  store.listener?.onChange({ version: 1, kind: 'client', id: 'web' });
  await sync.applied({ version: 1, kind: 'client', id: 'web' }, created.entry);
  t.same(store.calls, [], 'its message, arriving later, reads nothing');
});

import type { Test } from 'tap';
import type { EntryChange, EntryStore, StoredEntry } from '../../src/store/entry-types.js';
import type { OpenStore } from '../helpers/stores.js';

export const WEB_CLIENT = {
  client_id: 'web',
  client_name: 'Web – ünïcode {braces}',
  redirect_uris: ['https://web.example.com/cb'],
  token_endpoint_auth_method: 'none',
  nested: { list: [1, 'two', null, true], empty: {} },
};

/** What the change channel brought, and when the subscription said it was in place. */
interface Heard {
  readonly changes: EntryChange[];
  readonly malformed: string[];
  subscriptions: number;
  /** Resolves once `count` changes arrived (fails the test after 5 s). */
  until(count: number): Promise<void>;
}

async function waitFor(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Follows the store's changes until the test ends, once the subscription is in place. */
export async function listen(t: Test, entries: EntryStore): Promise<Heard> {
  const heard: Heard = {
    changes: [],
    malformed: [],
    subscriptions: 0,
    until: (count) => waitFor(() => heard.changes.length >= count, `${count} changes (${heard.changes.length} so far)`),
  };
  const subscription = entries.subscribeToEntryChanges({
    onChange: (change) => heard.changes.push(change),
    onSubscribed: () => (heard.subscriptions += 1),
    onMalformed: (message) => heard.malformed.push(message),
  });
  t.teardown(() => subscription.close());
  await waitFor(() => heard.subscriptions > 0, 'the subscription');
  return heard;
}

const now = (clock: { now: number }) => Math.floor(clock.now / 1000);

/** The contract of EntryStore on every store: atomic checked writes, a version, paging, a snapshot, announcements. */
export function entryStoreContract(t: Test, name: string, open: OpenStore): void {
  t.test(`${name}: entries`, async (t) => {
    t.test('created once, read back exactly; the version counts every write and nothing else', async (t) => {
      const { store, clock } = await open(t);
      const entries = store.entries;
      t.equal(await entries.entriesVersion(), 0, 'no write yet');
      const created = await entries.createEntry('client', 'web', WEB_CLIENT);
      const expected: StoredEntry = {
        kind: 'client',
        id: 'web',
        document: WEB_CLIENT,
        rev: 1,
        createdAt: now(clock),
        updatedAt: now(clock),
        sequence: 1,
      };
      t.same(created, { status: 'created', entry: expected, version: 1 });
      t.same(await entries.getEntry('client', 'web'), expected);
      t.same(await entries.createEntry('client', 'web', { client_id: 'web', other: true }), { status: 'exists' });
      t.same(await entries.getEntry('client', 'web'), expected, 'an existing entry is never overwritten');
      t.equal(await entries.entriesVersion(), 1, 'a refusal bumps nothing');
      t.equal(await entries.getEntry('resource', 'web'), undefined, 'kinds are apart');
      t.same((await entries.createEntry('resource', 'web', { resource: 'web' })).status, 'created', 'the same id in another kind');
      t.equal(await entries.entriesVersion(), 2);
    });

    t.test('replaced when it exists and the expected rev is its rev; created_at and sequence stay', async (t) => {
      const { store, clock } = await open(t);
      const entries = store.entries;
      await entries.createEntry('user', 'alice', { username: 'alice' });
      const createdAt = now(clock);
      clock.now += 5000;
      const replaced = await entries.replaceEntry('user', 'alice', { username: 'alice', disabled: true }, 1);
      t.same(replaced, {
        status: 'replaced',
        entry: {
          kind: 'user',
          id: 'alice',
          document: { username: 'alice', disabled: true },
          rev: 2,
          createdAt,
          updatedAt: createdAt + 5,
          sequence: 1,
        },
        version: 2,
      });
      t.same(await entries.replaceEntry('user', 'alice', { username: 'alice' }, 1), { status: 'stale', rev: 2 }, 'a stale If-Match');
      t.same((await entries.getEntry('user', 'alice'))?.document, { username: 'alice', disabled: true }, 'nothing written');
      t.equal((await entries.replaceEntry('user', 'alice', { username: 'alice' })).status, 'replaced', 'no expected rev: any');
      t.equal((await entries.getEntry('user', 'alice'))?.rev, 3);
      t.same(await entries.replaceEntry('user', 'bob', { username: 'bob' }), { status: 'not_found' }, 'never created by replace');
      t.equal(await entries.getEntry('user', 'bob'), undefined);
      t.equal(await entries.entriesVersion(), 3);
    });

    t.test('deleted when its rev is the expected one; then gone, and its id free again', async (t) => {
      const { store } = await open(t);
      const entries = store.entries;
      await entries.createEntry('provider', 'corp', { id: 'corp' });
      await entries.replaceEntry('provider', 'corp', { id: 'corp', name: 'Corp' });
      t.same(await entries.deleteEntry('provider', 'corp', 1), { status: 'stale', rev: 2 });
      t.ok(await entries.getEntry('provider', 'corp'), 'a stale delete deletes nothing');
      t.same(await entries.deleteEntry('provider', 'corp', 2), { status: 'deleted', version: 3 });
      t.equal(await entries.getEntry('provider', 'corp'), undefined);
      t.same(await entries.deleteEntry('provider', 'corp'), { status: 'not_found' });
      const again = await entries.createEntry('provider', 'corp', { id: 'corp' });
      t.equal(again.status === 'created' && again.entry.sequence, 4, 'created anew, at the end of the list');
    });

    t.test('listed in creation order, a page at a time, stable while entries are added and deleted', async (t) => {
      const { store } = await open(t);
      const entries = store.entries;
      for (const id of ['a', 'b', 'c', 'd', 'e']) await entries.createEntry('client', id, { client_id: id });
      await entries.createEntry('resource', 'https://api.example.com/', { resource: 'https://api.example.com/' });
      const ids = (page: { entries: readonly StoredEntry[] }) => page.entries.map((e) => e.id);
      const first = await entries.listEntries('client', { limit: 2 });
      t.same(ids(first), ['a', 'b']);
      t.equal(first.next, 2);
      await entries.createEntry('client', 'f', { client_id: 'f' });
      await entries.deleteEntry('client', 'c');
      await entries.replaceEntry('client', 'a', { client_id: 'a', client_name: 'A' });
      const second = await entries.listEntries('client', { after: first.next, limit: 2 });
      t.same(ids(second), ['d', 'e'], 'no entry skipped, none repeated; the deleted one gone');
      const third = await entries.listEntries('client', { after: second.next, limit: 2 });
      t.same(ids(third), ['f'], 'one added meanwhile comes last');
      t.equal(third.next, undefined, 'the last page');
      t.same(ids(await entries.listEntries('client', { limit: 500 })), ['a', 'b', 'd', 'e', 'f']);
      t.same(ids(await entries.listEntries('user', { limit: 10 })), [], 'a kind without entries');
      const exact = await entries.listEntries('client', { limit: 5 });
      t.equal(exact.next, undefined, 'exactly the limit left: no next page');
    });

    t.test('a snapshot: every entry of every kind, at the version it was read', async (t) => {
      const { store } = await open(t);
      const entries = store.entries;
      t.same(await entries.readAllEntries(), { version: 0, entries: [], unreadable: [] });
      await entries.createEntry('client', 'web', WEB_CLIENT);
      await entries.createEntry('subject', 'fed_x', { disabled: true, sessions_revoked_at: 1_800_000_000 });
      await entries.createEntry('user', 'alice', { username: 'alice' });
      await entries.deleteEntry('user', 'alice');
      const snapshot = await entries.readAllEntries();
      t.equal(snapshot.version, 4);
      t.same(
        snapshot.entries.map((e) => [e.kind, e.id, e.sequence]),
        [
          ['client', 'web', 1],
          ['subject', 'fed_x', 2],
        ],
      );
      t.same(snapshot.entries[0]?.document, WEB_CLIENT);
    });

    t.test('every write is announced once with its version, after it is done; refusals are not', async (t) => {
      const { store } = await open(t);
      const entries = store.entries;
      const heard = await listen(t, entries);
      await entries.createEntry('client', 'web', WEB_CLIENT);
      await entries.createEntry('client', 'web', WEB_CLIENT);
      await entries.replaceEntry('client', 'web', { ...WEB_CLIENT, client_name: 'Web' }, 1);
      await entries.replaceEntry('client', 'web', WEB_CLIENT, 1);
      await entries.createEntry('resource', 'https://api.example.com/a b', { resource: 'x' });
      await entries.deleteEntry('client', 'web');
      await entries.deleteEntry('client', 'web');
      await heard.until(4);
      t.same(heard.changes, [
        { version: 1, kind: 'client', id: 'web' },
        { version: 2, kind: 'client', id: 'web' },
        { version: 3, kind: 'resource', id: 'https://api.example.com/a b' },
        { version: 4, kind: 'client', id: 'web' },
      ]);
      t.same(heard.malformed, []);
    });

    t.test('of 20 concurrent creates of one id exactly one is created; of 20 replaces of one rev exactly one wins', async (t) => {
      const { store } = await open(t);
      const entries = store.entries;
      const creates = await Promise.all(Array.from({ length: 20 }, (_, i) => entries.createEntry('client', 'race', { n: i })));
      t.equal(creates.filter((c) => c.status === 'created').length, 1);
      t.equal(creates.filter((c) => c.status === 'exists').length, 19);
      const winner = creates.find((c) => c.status === 'created');
      t.same((await entries.getEntry('client', 'race'))?.document, winner?.status === 'created' && winner.entry.document);
      const replaces = await Promise.all(Array.from({ length: 20 }, (_, i) => entries.replaceEntry('client', 'race', { m: i }, 1)));
      t.equal(replaces.filter((r) => r.status === 'replaced').length, 1);
      t.same(
        replaces.filter((r) => r.status === 'stale'),
        Array.from({ length: 19 }, () => ({ status: 'stale', rev: 2 })),
      );
      const deletes = await Promise.all(Array.from({ length: 20 }, () => entries.deleteEntry('client', 'race', 2)));
      t.equal(deletes.filter((d) => d.status === 'deleted').length, 1);
      t.equal(await entries.entriesVersion(), 3, 'one create, one replace, one delete');
    });
  });
}

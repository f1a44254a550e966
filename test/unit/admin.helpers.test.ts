import t from 'tap';
import { z } from 'zod';
import { actorOf, changedFields, recordAdminChange } from '../../src/admin/audit.js';
import { entryTag, expectedRevision, fileEntryTag, ifMatchHolds, parseIfMatch, requireIfMatch } from '../../src/admin/etags.js';
import { decodeCursor, encodeCursor, pageOf, pageQuery } from '../../src/admin/paging.js';
import { AdminProblem, validationProblem } from '../../src/admin/problems.js';
import type { SecurityEvent } from '../../src/events/types.js';

/** The pure helpers entity plugins build on: cursors, entity tags, problems, the audit event. */

const BAD_CURSOR = {
  type: 'urn:oauth2-token-service:problem:validation',
  title: 'The request is not valid',
  status: 400,
  detail: 'the cursor is not one this list gave',
  errors: [{ field: 'cursor', problem: 'must be the `next` of the previous page, unchanged' }],
};

function problemOf(work: () => unknown): unknown {
  try {
    work();
  } catch (err) {
    return err instanceof AdminProblem ? err.toJSON() : err;
  }
  return undefined;
}

t.test('cursors: opaque positions, and a 400 problem for anything else', async (t) => {
  const cursor = encodeCursor([1700000000, 'grant-a']);
  t.match(cursor, /^[A-Za-z0-9_-]+$/, 'base64url');
  t.same(decodeCursor(cursor), [1700000000, 'grant-a']);
  for (const bad of [
    '',
    'not base64!',
    encodeCursor([]),
    Buffer.from('{"a":1}').toString('base64url'),
    Buffer.from('[').toString('base64url'),
  ])
    t.same(
      problemOf(() => decodeCursor(bad)),
      BAD_CURSOR,
      `refused: ${JSON.stringify(bad)}`,
    );
});

t.test('pages: limit, next only when more follow, stable while items are added', async (t) => {
  const items = ['a', 'b', 'c', 'd', 'e'].map((id, i) => ({ id, seq: i + 1 }));
  const position = (item: { seq: number }) => [item.seq];
  const first = pageOf(items, position, { limit: 2 });
  t.same(first, { items: items.slice(0, 2), next: encodeCursor([2]) });
  // Two items added before the next page is asked for: they come after, nothing is repeated or skipped.
  const grown = [...items, { id: 'f', seq: 6 }, { id: 'g', seq: 7 }];
  const second = pageOf(grown, position, { limit: 2, cursor: first.next });
  t.same(
    second.items.map((i) => i.id),
    ['c', 'd'],
  );
  const third = pageOf(grown, position, { limit: 3, cursor: second.next });
  t.same(third, { items: grown.slice(4, 7) }, 'the last page has no next');
  t.same(pageOf(items, position, { limit: 50 }), { items }, 'all on one page');
  t.same(pageOf([], position, { limit: 50 }), { items: [] });
});

t.test('the limit query parameter: 1 to 500, default 50', async (t) => {
  const query = z.object(pageQuery).strict();
  t.same(query.parse({}), { limit: 50 });
  t.same(query.parse({ limit: '500', cursor: 'abc' }), { limit: 500, cursor: 'abc' });
  for (const limit of ['0', '501', '1.5', 'ten', '-1']) t.notOk(query.safeParse({ limit }).success, `limit=${limit} refused`);
});

t.test('entity tags and If-Match (RFC 9110 §13.1.1)', async (t) => {
  t.equal(entryTag('client', 3), '"client-3"');
  t.match(fileEntryTag({ client_id: 'a' }), /^"file-[A-Za-z0-9_-]{22}"$/);
  t.equal(fileEntryTag({ client_id: 'a' }), fileEntryTag({ client_id: 'a' }), 'the same document, the same tag');
  t.not(fileEntryTag({ client_id: 'a' }), fileEntryTag({ client_id: 'b' }));
  t.equal(parseIfMatch(undefined), undefined);
  t.same(parseIfMatch('*'), { any: true });
  t.same(parseIfMatch('"client-3", W/"client-4"'), { any: false, tags: ['"client-3"', 'W/"client-4"'] });
  t.same(
    problemOf(() => parseIfMatch('client-3')),
    {
      type: 'urn:oauth2-token-service:problem:validation',
      title: 'The request is not valid',
      status: 400,
      detail: 'If-Match must be "*" or entity tags as ETag gave them',
      errors: [{ field: 'If-Match', problem: 'must be "*" or a list of quoted entity tags' }],
    },
  );
  t.ok(ifMatchHolds(undefined, undefined), 'no If-Match: go ahead');
  t.ok(ifMatchHolds(parseIfMatch('*'), '"client-3"'));
  t.notOk(ifMatchHolds(parseIfMatch('*'), undefined), '* needs a current entry');
  t.ok(ifMatchHolds(parseIfMatch('"client-2", "client-3"'), '"client-3"'));
  t.notOk(ifMatchHolds(parseIfMatch('"client-2"'), '"client-3"'), 'stale');
  t.notOk(ifMatchHolds(parseIfMatch('W/"client-3"'), '"client-3"'), 'weak tags never match (strong comparison)');
  t.same(
    problemOf(() => requireIfMatch(parseIfMatch('"client-2"'), '"client-3"')),
    {
      type: 'urn:oauth2-token-service:problem:precondition-failed',
      title: 'The entry changed since it was read (If-Match)',
      status: 412,
      detail: 'If-Match does not name the current version of this entry: read it again',
    },
  );
  t.equal(expectedRevision(parseIfMatch('"resource-2", "client-7"'), 'client'), 7);
  t.equal(expectedRevision(parseIfMatch('"file-abc"'), 'client'), undefined);
  t.equal(expectedRevision(parseIfMatch('*'), 'client'), undefined);
});

t.test('validation problems list each field; unknown fields are refused one by one', async (t) => {
  const schema = z.object({ redirect_uris: z.array(z.url()), name: z.string() }).strict();
  const result = schema.safeParse({ redirect_uris: ['nope'], extra: 1, other: 2 });
  t.notOk(result.success);
  if (result.success) return;
  t.same(validationProblem(result.error.issues).toJSON(), {
    type: 'urn:oauth2-token-service:problem:validation',
    title: 'The request is not valid',
    status: 400,
    detail: 'the request has invalid fields',
    errors: [
      { field: 'redirect_uris.0', problem: 'Invalid URL' },
      { field: 'name', problem: 'Invalid input: expected string, received undefined' },
      { field: 'extra', problem: 'unknown field' },
      { field: 'other', problem: 'unknown field' },
    ],
  });
  const root = z.object({}).safeParse([]);
  t.same(root.success ? [] : validationProblem(root.error.issues).toJSON().errors, [
    { field: '(body)', problem: 'Invalid input: expected object, received array' },
  ]);
});

t.test('the audit event: the actor, names of fields only, sorted', async (t) => {
  t.same(actorOf({ sub: 'operator', client_id: 'operator' }), { client_id: 'operator' }, 'a client acting for itself');
  t.same(actorOf({ sub: 'alice', client_id: 'console' }), { sub: 'alice' }, 'a person');
  t.same(changedFields({ a: 1, b: [1], secret: 'x' }, { a: 1, b: [2], c: true, secret: 'y' }), ['b', 'c', 'secret']);
  t.same(changedFields('x', { a: 1 }), []);
  const events: SecurityEvent[] = [];
  recordAdminChange(
    { emit: (event) => events.push(event) },
    { actor: { sub: 'alice' }, entity: 'client', id: 'web', action: 'updated', fields: ['scope', 'client_secret', 'scope'] },
  );
  t.same(events, [
    { event: 'admin.changed', actor: { sub: 'alice' }, entity: 'client', id: 'web', action: 'updated', fields: ['client_secret', 'scope'] },
  ]);
});

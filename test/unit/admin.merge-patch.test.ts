import t from 'tap';
import { mergePatch } from '../../src/admin/merge-patch.js';

/** RFC 7396 (JSON Merge Patch): every example of Appendix A, and the §3 example. */

const APPENDIX_A: readonly [original: unknown, patch: unknown, result: unknown][] = [
  [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
  [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
  [{ a: 'b' }, { a: null }, {}],
  [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
  [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
  [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
  [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
  [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
  [
    ['a', 'b'],
    ['c', 'd'],
    ['c', 'd'],
  ],
  [{ a: 'b' }, ['c'], ['c']],
  [{ a: 'foo' }, null, null],
  [{ a: 'foo' }, 'bar', 'bar'],
  [{ e: null }, { a: 1 }, { e: null, a: 1 }],
  [[1, 2], { a: 'b', c: null }, { a: 'b' }],
  [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
];

t.test('RFC 7396 Appendix A: each original, patch and result', async (t) => {
  for (const [original, patch, result] of APPENDIX_A) {
    t.same(mergePatch(original, patch), result, `${JSON.stringify(original)} + ${JSON.stringify(patch)}`);
  }
});

t.test('RFC 7396 §3: the example document', async (t) => {
  const target = {
    title: 'Goodbye!',
    author: { givenName: 'John', familyName: 'Doe' },
    tags: ['example', 'sample'],
    content: 'This will be unchanged',
  };
  const patch = { title: 'Hello!', phoneNumber: '+01-123-456-7890', author: { familyName: null }, tags: ['example'] };
  t.same(mergePatch(target, patch), {
    title: 'Hello!',
    author: { givenName: 'John' },
    tags: ['example'],
    content: 'This will be unchanged',
    phoneNumber: '+01-123-456-7890',
  });
});

t.test('neither argument is changed', async (t) => {
  const target = { a: { b: 'c' }, d: 1 };
  const patch = { a: { b: null }, d: null };
  t.same(mergePatch(target, patch), { a: {} });
  t.same(target, { a: { b: 'c' }, d: 1 });
  t.same(patch, { a: { b: null }, d: null });
});

t.test('a "__proto__" member of a parsed patch stays a member, never the prototype', async (t) => {
  const patched = mergePatch({}, JSON.parse('{"__proto__": {"polluted": true}}')) as Record<string, unknown>;
  t.equal(Object.getPrototypeOf(patched), Object.prototype);
  t.same(Object.keys(patched), ['__proto__']);
  t.equal(({} as Record<string, unknown>).polluted, undefined);
});

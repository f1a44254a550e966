import t from 'tap';
import { isGrantId, newGrantId } from '../../src/tokens/opaque.js';

t.test('grant ids: 128 bits as 22 base64url characters, never a leading "-" (a command line would read it as an option)', async (t) => {
  // Without the rule about 1 in 64 would start with "-": 156 of 10 000 expected.
  const ids = Array.from({ length: 10_000 }, () => newGrantId());
  t.same(
    ids.filter((id) => !isGrantId(id)),
    [],
    'every id has the grant id form',
  );
  t.same(
    ids.filter((id) => id.startsWith('-')),
    [],
    'none starts with "-"',
  );
  t.equal(new Set(ids).size, ids.length, 'all distinct');
  t.ok(
    ids.some((id) => id.includes('-')),
    '"-" still appears inside ids: only the first character is redrawn',
  );
});

import t from 'tap';
import { randomBase64url, randomBuffer, randomId } from '../../src/tokens/random-id.js';

t.test('pooled random values: the requested length, never repeated across pool refills', async (t) => {
  const seen = new Set<string>();
  const lengths = new Set<number>();
  // 4 KiB pool: 2,000 values of 32 bytes refill it more than fifteen times.
  for (let i = 0; i < 2000; i++) {
    const value = randomBase64url(32);
    lengths.add(Buffer.from(value, 'base64url').length);
    seen.add(value);
  }
  t.same([...lengths], [32], 'every value is 32 bytes');
  t.equal(seen.size, 2000, 'no value handed out twice');
  t.match(randomId(), /^[A-Za-z0-9_-]{22}$/, 'an id is 128 bits, base64url');
});

t.test('randomBuffer: a buffer of its own, not a view of the pool', async (t) => {
  const first = randomBuffer(12);
  const copy = Buffer.from(first);
  for (let i = 0; i < 1000; i++) randomBuffer(12); // refills the pool several times
  t.equal(first.length, 12);
  t.same(first, copy, 'later draws and refills leave an earlier value unchanged');
  t.notSame(randomBuffer(12), randomBuffer(12));
});

t.test('lengths outside 1 to 256 bytes are a programming error', async (t) => {
  for (const length of [0, -1, 257, 1.5]) t.throws(() => randomBase64url(length), RangeError, `length ${length}`);
});

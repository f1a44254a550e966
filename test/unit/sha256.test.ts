import { createHash } from 'node:crypto';
import t from 'tap';
import { sha256Base64url, sha256Bytes } from '../../src/shared/sha256.js';

t.test('sha256 of UTF-8 text: the same bytes as createHash, in both output forms', async (t) => {
  for (const text of ['', 'abc', 'grant.Zm9v', 'ünïcödé ✓', 'x'.repeat(5000)]) {
    const expected = createHash('sha256').update(text, 'utf8').digest();
    t.same(sha256Bytes(text), expected, `bytes of ${JSON.stringify(text.slice(0, 12))}`);
    t.equal(sha256Base64url(text), expected.toString('base64url'), `base64url of ${JSON.stringify(text.slice(0, 12))}`);
  }
  // FIPS 180-2 test vector: SHA-256("abc").
  t.equal(sha256Bytes('abc').toString('hex'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
});

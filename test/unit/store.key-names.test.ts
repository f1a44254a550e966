import { createHash } from 'node:crypto';
import t from 'tap';
import { RedisKeys } from '../../src/store/redis-keys.js';
import { clientAssertionKey, dpopProofKey } from '../../src/store/replay-keys.js';

/**
 * The names values are kept under outlive a release: an upgraded instance must find the
 * grants, consents and replay records the one before it wrote, or a replayed proof would
 * pass inside its window. Each name is pinned here to SHA-256 as createHash computes it,
 * whatever primitive the code uses.
 */

const sha256 = (value: string) => createHash('sha256').update(value, 'utf8').digest('base64url');
const NAMES = ['jti-1', 'urn:uuid:6a1f', 'é☃𝄞 {tag}', '', 'x'.repeat(600)];

t.test('replay keys: the scope as given or digested, the jti digested, as before', async (t) => {
  for (const jti of NAMES) {
    t.same(dpopProofKey('0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I', jti), ['0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I', sha256(jti)]);
    t.same(clientAssertionKey(`client ${jti}`, jti), [sha256(`client ${jti}`), sha256(jti)]);
  }
  t.equal(sha256(''), '47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU', 'the known digest of nothing');
});

t.test("Redis hash tags: an identifier's SHA-256, as before", async (t) => {
  const keys = new RedisKeys('oauth:');
  for (const id of NAMES) {
    t.equal(keys.userGrants(id), `oauth:{sub:${sha256(id)}}:grants`);
    t.equal(keys.clientGrants(id), `oauth:{client:${sha256(id)}}:grants`);
  }
});

import { randomBytes } from 'node:crypto';
import t from 'tap';
import { newRefreshTokenHead, parseRefreshToken } from '../../src/tokens/refresh-token-format.js';
import { RefreshTokenSealer, RefreshTokenSealing } from '../../src/tokens/refresh-token-sealer.js';

const FAMILY = {
  clientId: 'web',
  sub: 'user-alice',
  scope: ['read', 'write'],
  resources: ['https://api.example.com/'],
  authTime: 1_700_000_000,
};

t.test('a refresh token carries its family data, sealed under the key for its own head', async (t) => {
  const sealer = new RefreshTokenSealer(randomBytes(32));
  const head = newRefreshTokenHead('Zk3J0c1Q2l7wLr9b4k0aGQ', 0);
  const value = sealer.seal(head, { ...FAMILY, jkt: 'thumbprint' });
  t.match(value, /^Zk3J0c1Q2l7wLr9b4k0aGQ\.0\.[A-Za-z0-9_-]{43}\.[A-Za-z0-9_-]+$/);
  const parsed = parseRefreshToken(value);
  t.same(parsed && { ...parsed, sealed: undefined }, { ...head, sealed: undefined }, 'parsed back to its head');
  t.same(sealer.open(parsed!), { ...FAMILY, jkt: 'thumbprint' });
  t.same(sealer.open(parseRefreshToken(sealer.seal(head, FAMILY))!), FAMILY, 'no jkt, none read back');

  const [grantId, , nonce, sealed] = value.split('.') as [string, string, string, string];
  const altered = (v: string) => sealer.open(parseRefreshToken(v)!);
  t.equal(altered(`${grantId}.1.${nonce}.${sealed}`), undefined, 'another generation does not open');
  t.equal(altered(`${'A'.repeat(22)}.0.${nonce}.${sealed}`), undefined, 'another grant id does not open');
  t.equal(altered(`${grantId}.0.${'B'.repeat(43)}.${sealed}`), undefined, 'another nonce does not open');
  // One bit of the tag flipped (replacing the last characters with fixed ones was no change when the seal ended in them).
  const tampered = Buffer.from(sealed, 'base64url');
  tampered.writeUInt8(tampered.readUInt8(tampered.length - 1) ^ 1, tampered.length - 1);
  t.equal(altered(`${grantId}.0.${nonce}.${tampered.toString('base64url')}`), undefined, 'an altered seal does not open');
  t.equal(new RefreshTokenSealer(randomBytes(32)).open(parsed!), undefined, 'another key does not open it');
});

t.test('the grammar', async (t) => {
  const grant = 'Zk3J0c1Q2l7wLr9b4k0aGQ';
  const nonce = 'n'.repeat(43);
  t.match(parseRefreshToken(`${grant}.zz.${nonce}.abc`), { grantId: grant, generation: 36 * 35 + 35 }, 'base36 generation');
  for (const bad of [
    `${grant}.00.${nonce}.abc`,
    `${grant}.A.${nonce}.abc`,
    `${grant}.0.${nonce}`,
    `${grant}.0.${nonce}.a.b`,
    `${grant}.${'z'.repeat(11)}.${nonce}.abc`,
  ]) {
    t.equal(parseRefreshToken(bad), undefined, bad);
  }
  t.equal(parseRefreshToken(`${grant}.0.${nonce}.${'a'.repeat(9000)}`), undefined, 'too long');
  t.equal(parseRefreshToken(`${grant}.${'s'.repeat(43)}`), undefined, 'a legacy token is not of this format');
});

t.test('the grace response opens only with the token that was presented', async (t) => {
  const sealer = new RefreshTokenSealer(randomBytes(32));
  const presented = newRefreshTokenHead('Zk3J0c1Q2l7wLr9b4k0aGQ', 4);
  const sealed = sealer.sealResponse(presented, '{"access_token":"x"}');
  t.equal(sealer.openResponse(presented, sealed), '{"access_token":"x"}');
  t.equal(sealer.openResponse(newRefreshTokenHead('Zk3J0c1Q2l7wLr9b4k0aGQ', 4), sealed), undefined);
  t.equal(new RefreshTokenSealer(randomBytes(32)).openResponse(presented, sealed), undefined, 'nor under another key');
});

t.test('the key is read once, then offered back to the store every minute in the background', async (t) => {
  let held: Buffer | undefined;
  const offered: (Buffer | undefined)[] = [];
  const store = {
    refreshTokenKey: async (candidate?: Buffer) => {
      offered.push(candidate);
      held ??= candidate ?? randomBytes(32);
      return held;
    },
  };
  const clock = { now: 1_000_000 };
  const sealing = new RefreshTokenSealing(store, () => clock.now);
  const first = await sealing.sealer();
  t.equal(await sealing.sealer(), first, 'kept');
  t.equal(offered.length, 1, 'one store read');
  const token = first.seal(newRefreshTokenHead('Zk3J0c1Q2l7wLr9b4k0aGQ', 0), FAMILY);

  held = undefined; // the store lost it (FLUSHALL, a restart without persistence)
  clock.now += 60_000;
  await sealing.sealer();
  await new Promise((resolve) => setImmediate(resolve));
  t.equal(offered.length, 2, 'offered again after a minute');
  t.ok(held && offered[1]?.equals(held), 'the store holds the same key again');
  t.same((await sealing.sealer()).open(parseRefreshToken(token)!), FAMILY, 'earlier tokens still open');

  held = randomBytes(32); // another key is in force
  clock.now += 60_000;
  await sealing.sealer();
  await new Promise((resolve) => setImmediate(resolve));
  t.equal((await sealing.sealer()).open(parseRefreshToken(token)!), undefined, 'switched to the key in force');
});

t.test('a failed first read is not kept', async (t) => {
  let fail = true;
  const sealing = new RefreshTokenSealing({
    refreshTokenKey: async () => {
      if (fail) throw new Error('store down');
      return randomBytes(32);
    },
  });
  await t.rejects(sealing.sealer(), { message: 'store down' });
  fail = false;
  t.ok(await sealing.sealer());
});

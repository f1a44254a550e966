import { createCipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
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

t.test('a refresh token carries its family data, sealed under the key for its grant', async (t) => {
  const sealer = new RefreshTokenSealer(randomBytes(32));
  const head = newRefreshTokenHead('Zk3J0c1Q2l7wLr9b4k0aGQ', 0);
  const value = sealer.seal(head, { ...FAMILY, jkt: 'thumbprint' });
  t.match(value, /^Zk3J0c1Q2l7wLr9b4k0aGQ\.0\.[A-Za-z0-9_-]{43}\.[A-Za-z0-9_-]+$/);
  const parsed = parseRefreshToken(value);
  t.same(parsed && { ...parsed, sealed: undefined }, { ...head, sealed: undefined }, 'parsed back to its head');
  t.same(sealer.open(parsed!), { ...FAMILY, jkt: 'thumbprint' });
  t.same(sealer.openSealed(parsed!), { family: { ...FAMILY, jkt: 'thumbprint' }, sealedForGrant: true });
  t.same(sealer.open(parseRefreshToken(sealer.seal(head, FAMILY))!), FAMILY, 'no jkt, none read back');

  const [grantId, , nonce, sealed] = value.split('.') as [string, string, string, string];
  const altered = (v: string) => sealer.open(parseRefreshToken(v)!);
  t.equal(altered(`${'A'.repeat(22)}.0.${nonce}.${sealed}`), undefined, 'another grant id does not open');
  t.same(
    altered(`${grantId}.7.${'B'.repeat(43)}.${sealed}`),
    { ...FAMILY, jkt: 'thumbprint' },
    'any head of the grant opens: the store knows which is current',
  );
  // One bit of the tag flipped (replacing the last characters with fixed ones was no change when the seal ended in them).
  const tampered = Buffer.from(sealed, 'base64url');
  tampered.writeUInt8(tampered.readUInt8(tampered.length - 1) ^ 1, tampered.length - 1);
  t.equal(altered(`${grantId}.0.${nonce}.${tampered.toString('base64url')}`), undefined, 'an altered seal does not open');
  t.equal(new RefreshTokenSealer(randomBytes(32)).open(parsed!), undefined, 'another key does not open it');
});

t.test('a successor carries the seal of its family on: nothing is encrypted at a rotation', async (t) => {
  const sealer = new RefreshTokenSealer(randomBytes(32));
  const first = parseRefreshToken(sealer.seal(newRefreshTokenHead('Zk3J0c1Q2l7wLr9b4k0aGQ', 0), FAMILY))!;
  const next = newRefreshTokenHead('Zk3J0c1Q2l7wLr9b4k0aGQ', 1);
  const successor = sealer.successor(next, first, sealer.openSealed(first)!);
  t.equal(successor, `${next.head}.${first.sealed}`);
  t.same(sealer.openSealed(parseRefreshToken(successor)!), { family: FAMILY, sealedForGrant: true });
});

/** A token as sealed before seals were per family: key and IV HMAC-SHA512(subkey, head), the head as additional data. */
function sealedForHead(key: Buffer, head: ReturnType<typeof newRefreshTokenHead>, data: unknown[]): string {
  const subkey = Buffer.from(hkdfSync('sha256', key, '', 'oauth2 refresh token: family data', 32));
  const derived = createHmac('sha512', subkey).update(head.head, 'latin1').digest();
  const cipher = createCipheriv('aes-256-gcm', derived.subarray(0, 32), derived.subarray(32, 44)).setAAD(Buffer.from(head.head, 'latin1'));
  const sealed = Buffer.concat([cipher.update(JSON.stringify(data), 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return `${head.head}.${sealed.toString('base64url')}`;
}

t.test('tokens sealed per token, before seals were per family, still open; their successor is sealed for the grant', async (t) => {
  const key = randomBytes(32);
  const sealer = new RefreshTokenSealer(key);
  const head = newRefreshTokenHead('Zk3J0c1Q2l7wLr9b4k0aGQ', 3);
  const data = [FAMILY.clientId, FAMILY.sub, FAMILY.scope, FAMILY.resources, FAMILY.authTime, 'thumbprint'];
  const presented = parseRefreshToken(sealedForHead(key, head, data))!;
  const opened = sealer.openSealed(presented);
  t.same(opened, { family: { ...FAMILY, jkt: 'thumbprint' }, sealedForGrant: false });

  const [grantId, , nonce, sealed] = `${presented.head}.${presented.sealed}`.split('.') as [string, string, string, string];
  const altered = (v: string) => sealer.open(parseRefreshToken(v)!);
  t.equal(altered(`${grantId}.4.${nonce}.${sealed}`), undefined, 'another generation does not open');
  t.equal(altered(`${grantId}.3.${'B'.repeat(43)}.${sealed}`), undefined, 'another nonce does not open');
  t.equal(new RefreshTokenSealer(randomBytes(32)).open(presented), undefined, 'another key does not open it');

  const next = newRefreshTokenHead('Zk3J0c1Q2l7wLr9b4k0aGQ', 4);
  const successor = parseRefreshToken(sealer.successor(next, presented, opened!))!;
  t.not(successor.sealed, presented.sealed, 'sealed afresh');
  t.same(sealer.openSealed(successor), { family: { ...FAMILY, jkt: 'thumbprint' }, sealedForGrant: true }, 'for the grant');
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

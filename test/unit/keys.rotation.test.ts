import { readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createLocalJWKSet, jwtVerify } from 'jose';
import t from 'tap';
import { describeKeyChange } from '../../src/cli/key-lines.js';
import { type KeyRecord, readKeyFolder } from '../../src/keys/key-file.js';
import { Keystore } from '../../src/keys/keystore.js';
import { type KeyChange, pruneKeys, revokeKey, rotateKeys } from '../../src/keys/rotation.js';
import { AccessTokens } from '../../src/tokens/access-token.js';
import { tempDir, writeKeyWith } from '../helpers/keys.js';

/**
 * What `npm run keys:rotate` does to a folder and prints, run in-process at an injected
 * time; test/e2e/keys.rotate-script.test.ts runs the script itself for its exit codes,
 * arguments and streams.
 */

const NOW = 1_767_225_600; // 2026-01-01T00:00:00Z
const TTL = 600;
const iso = (seconds: number) => new Date(seconds * 1000).toISOString();
const lines = (changes: KeyChange[]) => changes.map(describeKeyChange);
const rotate = (dir: string, now: number, delay = 300) => rotateKeys(dir, { delay, accessTokenTtl: TTL, now });

const writeKey = (dir: string, fields: Partial<KeyRecord> & { kid: string }) => writeKeyWith(dir, NOW, fields);

t.test('rotateKeys', async (t) => {
  t.test('the first run creates a key that signs at once, in a 0600 file', async (t) => {
    const dir = await tempDir(t);
    const changes = await rotate(dir, NOW);
    const [record] = await readKeyFolder(dir);
    t.same(lines(changes), [`created  ${record?.kid} ES256 published now, signs from ${iso(NOW)}`]);
    t.match(record, { alg: 'ES256', created_at: NOW, signs_from: NOW });
    t.equal(record?.signs_until, undefined);
    t.equal((await stat(join(dir, `${record?.kid}.json`))).mode & 0o777, 0o600);
    t.same((await readdir(dir)).length, 1, 'no lock or temporary file is left behind');
  });

  t.test('a later run publishes a new key that signs only after the delay', async (t) => {
    const dir = await tempDir(t);
    await rotate(dir, NOW - 1000);
    const [first] = await readKeyFolder(dir);
    const changes = await rotate(dir, NOW);
    const fresh = (await readKeyFolder(dir)).find((k) => k.kid !== first?.kid);
    t.same(lines(changes), [
      `retiring ${first?.kid} ES256 signs until ${iso(NOW + 300)}, published until ${iso(NOW + 300 + TTL)}`,
      `created  ${fresh?.kid} ES256 published now, signs from ${iso(NOW + 300)}`,
    ]);
    const keystore = await Keystore.open(dir, NOW);
    t.equal(keystore.signingKeyAt(NOW + 299)?.kid, first?.kid, 'the old key still signs during the delay');
    t.same(
      keystore
        .jwksAt(NOW)
        .keys.map((k) => k.kid)
        .sort(),
      [first?.kid, fresh?.kid].sort(),
      'both are published',
    );
    t.equal(keystore.signingKeyAt(NOW + 300)?.kid, fresh?.kid, 'the new key signs after the delay');
    t.same(
      keystore.jwksAt(NOW + 300 + TTL).keys.map((k) => k.kid),
      [fresh?.kid],
      'the old key is unpublished once its tokens have expired',
    );
  });

  for (const alg of ['ES256', 'EdDSA', 'RS256', 'PS256'] as const) {
    t.test(`alg ${alg} makes a key the server signs with and the JWKS verifies`, async (t) => {
      const dir = await tempDir(t);
      await rotateKeys(dir, { alg, delay: 0, accessTokenTtl: TTL, now: NOW });
      const keystore = await Keystore.open(dir, NOW);
      const issuer = new AccessTokens(keystore, { issuer: 'https://as', audience: 'api', ttlSeconds: 60 }, () => NOW * 1000);
      const { token } = await issuer.issue({ subject: 's', clientId: 'c', scope: ['read'] });
      const jwks = keystore.jwksAt(NOW);
      t.equal(jwks.keys[0]?.alg, alg);
      const { protectedHeader } = await jwtVerify(token, createLocalJWKSet(jwks), {
        issuer: 'https://as',
        audience: 'api',
        currentDate: new Date(NOW * 1000),
      });
      t.equal(protectedHeader.alg, alg);
    });
  }
});

t.test('revokeKey', async (t) => {
  t.test('revoking the signing key puts a replacement in that signs at once', async (t) => {
    const dir = await tempDir(t);
    await writeKey(dir, { kid: '-revoke-me', signs_from: NOW - 60 });
    const changes = await revokeKey(dir, '-revoke-me', { accessTokenTtl: TTL, now: NOW });
    const [replacement] = await readKeyFolder(dir);
    t.not(replacement?.kid, '-revoke-me');
    t.same(lines(changes), [
      `created  ${replacement?.kid} ES256 published now, signs from ${iso(NOW)} (replaces revoked -revoke-me)`,
      'revoked  -revoke-me ES256 removed at once: its tokens fail once verifiers refresh their JWKS',
    ]);
    t.equal((await Keystore.open(dir, NOW)).signingKeyAt(NOW)?.kid, replacement?.kid, 'a key signs right away');
  });

  t.test('revoking the scheduled key extends the current one and says so', async (t) => {
    const dir = await tempDir(t);
    await rotate(dir, NOW - 1000);
    const [current] = await readKeyFolder(dir);
    await rotate(dir, NOW);
    const scheduled = (await readKeyFolder(dir)).find((k) => k.kid !== current?.kid) as KeyRecord;
    const changes = await revokeKey(dir, scheduled.kid, { accessTokenTtl: TTL, now: NOW + 10 });
    t.same(lines(changes), [
      `extended ${current?.kid} ES256 signs until open-ended instead of ${iso(scheduled.signs_from)} (no other key would sign from then), published until open-ended`,
      `revoked  ${scheduled.kid} ES256 removed at once: its tokens fail once verifiers refresh their JWKS`,
    ]);
    t.equal((await Keystore.open(dir, NOW)).signingKeyAt(NOW + 100_000)?.kid, current?.kid, 'the current key signs on, with no end');
  });

  t.test('an unknown kid is refused and nothing changes', async (t) => {
    const dir = await tempDir(t);
    await rotate(dir, NOW);
    const before = await readdir(dir);
    await t.rejects(revokeKey(dir, 'nope', { accessTokenTtl: TTL, now: NOW }), { message: `no key with kid nope in ${dir}` });
    t.same(await readdir(dir), before);
  });
});

t.test('pruneKeys', async (t) => {
  t.test('deletes keys whose tokens have all expired, keeps the rest', async (t) => {
    const dir = await tempDir(t);
    await rotateKeys(dir, { delay: 0, accessTokenTtl: 60, now: NOW - 10_000 });
    await rotateKeys(dir, { delay: 0, accessTokenTtl: 60, now: NOW - 9_900 });
    const [expired, current] = (await readKeyFolder(dir)).sort((a, b) => a.signs_from - b.signs_from);
    const changes = await pruneKeys(dir, { accessTokenTtl: 60, now: NOW });
    t.same(lines(changes), [
      `kept     ${current?.kid} ES256 signs ${iso(NOW - 9_900)} to open-ended, published until open-ended`,
      `deleted  ${expired?.kid} ES256 removed: every token it signed expired at ${iso(NOW - 9_900 + 60)}`,
    ]);
    t.same(
      (await readKeyFolder(dir)).map((k) => k.kid),
      [current?.kid],
    );
  });

  t.test('in a folder where no key signs any more, puts in one that signs at once', async (t) => {
    const dir = await tempDir(t);
    const orphan = await writeKey(dir, {
      kid: 'orphan',
      created_at: NOW - 9000,
      signs_from: NOW - 9000,
      signs_until: NOW - 8000,
      publish_until: NOW - 4400,
    });
    const changes = await pruneKeys(dir, { accessTokenTtl: TTL, now: NOW });
    const [spare] = await readKeyFolder(dir);
    t.same(lines(changes), [
      `created  ${spare?.kid} ES256 published now, signs from ${iso(NOW)} (no other key signs now)`,
      `deleted  orphan ES256 removed: every token it signed expired at ${iso(orphan.publish_until as number)}`,
    ]);
    t.equal((await Keystore.open(dir, NOW)).signingKeyAt(NOW)?.kid, spare?.kid);
  });

  t.test('a broken key file stops the run, naming the file', async (t) => {
    const dir = await tempDir(t);
    await writeFile(join(dir, 'broken.json'), '{"kid":', { mode: 0o600 });
    await t.rejects(pruneKeys(dir, { accessTokenTtl: TTL, now: NOW }), { message: 'key file broken.json: not valid JSON' });
    t.same(await readdir(dir), ['broken.json'], 'nothing written, no lock left behind');
  });
});

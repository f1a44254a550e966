import { readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createLocalJWKSet, jwtVerify } from 'jose';
import t from 'tap';
import { describeKeyChange } from '../../src/cli/key-lines.js';
import { type KeyRecord, readKeyFolder } from '../../src/keys/key-file.js';
import { Keystore } from '../../src/keys/keystore.js';
import { ensureSigningKey, type KeyChange, pruneKeys, revokeKey, rotateKeys } from '../../src/keys/rotation.js';
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
/** A rotation of the ES256 chain alone (`keys rotate --alg ES256`). */
const rotate = (dir: string, now: number, delay = 300) => rotateKeys(dir, { alg: 'ES256', delay, accessTokenTtl: TTL, now });
const created = (changes: KeyChange[]) => changes.flatMap((c) => (c.action === 'created' ? [c.key] : []));

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

t.test('rotateKeys: a chain per algorithm', async (t) => {
  t.test(
    'without alg, the first run starts an ES256 chain (access tokens) and an RS256 chain (ID tokens), each signing at once',
    async (t) => {
      const dir = await tempDir(t);
      const changes = await rotateKeys(dir, { delay: 300, accessTokenTtl: TTL, now: NOW });
      const [es, rs] = created(changes);
      t.same(lines(changes), [
        `created  ${es?.kid} ES256 published now, signs from ${iso(NOW)}`,
        `created  ${rs?.kid} RS256 published now, signs from ${iso(NOW)}`,
      ]);
      const keystore = await Keystore.open(dir, NOW);
      t.same(keystore.signingAlgorithmsAt(NOW), ['ES256', 'RS256']);
      t.equal(keystore.signingKeyAt(NOW)?.kid, es?.kid, 'access tokens: ES256');
    },
  );

  t.test('without alg, a later run rotates every chain present and starts a missing default chain', async (t) => {
    const dir = await tempDir(t);
    await rotateKeys(dir, { alg: 'ES256', delay: 0, accessTokenTtl: TTL, now: NOW - 1000 });
    await rotateKeys(dir, { alg: 'EdDSA', delay: 0, accessTokenTtl: TTL, now: NOW - 1000 });
    const [es, ed] = await readKeyFolder(dir).then((keys) => ['ES256', 'EdDSA'].map((alg) => keys.find((k) => k.alg === alg)));
    const changes = await rotateKeys(dir, { delay: 300, accessTokenTtl: TTL, now: NOW });
    const [es2, ed2, rs] = created(changes);
    t.same(lines(changes), [
      `retiring ${es?.kid} ES256 signs until ${iso(NOW + 300)}, published until ${iso(NOW + 300 + TTL)}`,
      `created  ${es2?.kid} ES256 published now, signs from ${iso(NOW + 300)}`,
      `retiring ${ed?.kid} EdDSA signs until ${iso(NOW + 300)}, published until ${iso(NOW + 300 + TTL)}`,
      `created  ${ed2?.kid} EdDSA published now, signs from ${iso(NOW + 300)}`,
      `created  ${rs?.kid} RS256 published now, signs from ${iso(NOW)}`,
    ]);
  });

  t.test('with alg, only that chain: the others are neither rotated nor printed', async (t) => {
    const dir = await tempDir(t);
    await rotateKeys(dir, { delay: 0, accessTokenTtl: TTL, now: NOW - 1000 });
    const before = await readKeyFolder(dir);
    const rs = before.find((k) => k.alg === 'RS256');
    const changes = await rotateKeys(dir, { alg: 'RS256', delay: 300, accessTokenTtl: TTL, now: NOW });
    t.same(lines(changes), [
      `retiring ${rs?.kid} RS256 signs until ${iso(NOW + 300)}, published until ${iso(NOW + 300 + TTL)}`,
      `created  ${created(changes)[0]?.kid} RS256 published now, signs from ${iso(NOW + 300)}`,
    ]);
    const es = before.find((k) => k.alg === 'ES256');
    t.same(
      (await readKeyFolder(dir)).find((k) => k.kid === es?.kid),
      es,
      'the ES256 key file is as it was',
    );
  });

  t.test('the chains started are the access-token chain (ACCESS_TOKEN_SIGNING_ALG, or the one the folder has) and RS256', async (t) => {
    const rsOnly = await tempDir(t);
    const one = await rotateKeys(rsOnly, { accessTokenAlg: 'RS256', delay: 300, accessTokenTtl: TTL, now: NOW });
    t.same(
      created(one).map((k) => k.alg),
      ['RS256'],
      'ACCESS_TOKEN_SIGNING_ALG=RS256: one chain signs both',
    );
    const again = await rotateKeys(rsOnly, { delay: 300, accessTokenTtl: TTL, now: NOW + 10 });
    t.same(
      created(again).map((k) => [k.alg, k.signs_from]),
      [['RS256', NOW + 310]],
      'a folder whose access tokens are RS256 (from before chains) gets no ES256 chain: it would sign access tokens at once',
    );
    const ed = await tempDir(t);
    await rotateKeys(ed, { alg: 'EdDSA', delay: 0, accessTokenTtl: TTL, now: NOW - 1000 });
    const started = await rotateKeys(ed, { delay: 300, accessTokenTtl: TTL, now: NOW });
    t.same(
      created(started).map((k) => [k.alg, k.signs_from]),
      [
        ['EdDSA', NOW + 300],
        ['RS256', NOW],
      ],
    );
    t.equal((await Keystore.open(ed, NOW)).signingKeyAt(NOW)?.alg, 'EdDSA', 'access tokens stay EdDSA');
  });
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

  t.test('revoking the RS256 signer: a replacement of its algorithm, and the ES256 chain untouched', async (t) => {
    const dir = await tempDir(t);
    await rotateKeys(dir, { delay: 0, accessTokenTtl: TTL, now: NOW - 60 });
    const [es, rs] = (await readKeyFolder(dir)).sort((a, b) => a.alg.localeCompare(b.alg));
    const changes = await revokeKey(dir, rs?.kid as string, { accessTokenTtl: TTL, now: NOW });
    const [replacement] = created(changes);
    t.same(lines(changes), [
      `created  ${replacement?.kid} RS256 published now, signs from ${iso(NOW)} (replaces revoked ${rs?.kid})`,
      `revoked  ${rs?.kid} RS256 removed at once: its tokens fail once verifiers refresh their JWKS`,
    ]);
    t.same((await readKeyFolder(dir)).map((k) => k.kid).sort(), [es?.kid, replacement?.kid].sort());
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
    await rotateKeys(dir, { alg: 'ES256', delay: 0, accessTokenTtl: 60, now: NOW - 10_000 });
    await rotateKeys(dir, { alg: 'ES256', delay: 0, accessTokenTtl: 60, now: NOW - 9_900 });
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

  t.test('works chain by chain: each chain keeps a signer of its algorithm; with alg, that chain only', async (t) => {
    const dir = await tempDir(t);
    await rotateKeys(dir, { alg: 'ES256', delay: 0, accessTokenTtl: 60, now: NOW - 10_000 });
    await rotateKeys(dir, { alg: 'ES256', delay: 0, accessTokenTtl: 60, now: NOW - 9_900 });
    const rsOrphan = await writeKeyWith(dir, NOW - 9000, {
      kid: 'rs-orphan',
      alg: 'RS256',
      signs_until: NOW - 8000,
      publish_until: NOW - 4400,
    });
    const [expired, current] = (await readKeyFolder(dir)).filter((k) => k.alg === 'ES256').sort((a, b) => a.signs_from - b.signs_from);
    const onlyRs = await pruneKeys(dir, { alg: 'RS256', accessTokenTtl: 60, now: NOW });
    const [spare] = created(onlyRs);
    t.same(lines(onlyRs), [
      `created  ${spare?.kid} RS256 published now, signs from ${iso(NOW)} (no other key signs now)`,
      `deleted  rs-orphan RS256 removed: every token it signed expired at ${iso(rsOrphan.publish_until as number)}`,
    ]);
    t.ok(
      (await readKeyFolder(dir)).some((k) => k.kid === expired?.kid),
      '--alg RS256 leaves the ES256 chain alone',
    );
    t.same(lines(await pruneKeys(dir, { accessTokenTtl: 60, now: NOW })), [
      `kept     ${current?.kid} ES256 signs ${iso(NOW - 9_900)} to open-ended, published until open-ended`,
      `deleted  ${expired?.kid} ES256 removed: every token it signed expired at ${iso(NOW - 9_900 + 60)}`,
      `kept     ${spare?.kid} RS256 signs ${iso(NOW)} to open-ended, published until open-ended`,
    ]);
    t.same(await pruneKeys(dir, { alg: 'PS256', accessTokenTtl: 60, now: NOW }), [], 'prune never starts a chain');
    const empty = await tempDir(t);
    t.same([await pruneKeys(empty, { accessTokenTtl: 60, now: NOW }), await readdir(empty)], [[], []], 'nor a folder');
  });

  t.test('a broken key file stops the run, naming the file', async (t) => {
    const dir = await tempDir(t);
    await writeFile(join(dir, 'broken.json'), '{"kid":', { mode: 0o600 });
    await t.rejects(pruneKeys(dir, { accessTokenTtl: TTL, now: NOW }), { message: 'key file broken.json: not valid JSON' });
    t.same(await readdir(dir), ['broken.json'], 'nothing written, no lock left behind');
  });
});

t.test('ensureSigningKey (npm run dev): the access-token chain and the RS256 chain each get a key signing now', async (t) => {
  const dir = await tempDir(t);
  t.same(
    (await ensureSigningKey(dir, { accessTokenTtl: TTL })).map((k) => k.alg),
    ['ES256', 'RS256'],
  );
  t.same(await ensureSigningKey(dir, { accessTokenTtl: TTL }), [], 'both sign: nothing to do');
  const esOnly = await tempDir(t);
  await rotateKeys(esOnly, { alg: 'ES256', delay: 0, accessTokenTtl: TTL });
  t.same(
    (await ensureSigningKey(esOnly, { accessTokenTtl: TTL })).map((k) => k.alg),
    ['RS256'],
    'a folder from before chains gets its RS256 chain',
  );
  const eddsa = await tempDir(t);
  t.same(
    (await ensureSigningKey(eddsa, { accessTokenAlg: 'EdDSA', accessTokenTtl: TTL })).map((k) => k.alg),
    ['EdDSA', 'RS256'],
    'ACCESS_TOKEN_SIGNING_ALG=EdDSA',
  );
});

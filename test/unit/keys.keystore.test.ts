import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { readKeyFolder, type SigningAlgorithm } from '../../src/keys/key-file.js';
import { Keystore } from '../../src/keys/keystore.js';
import { chainOf, signingKeyAt } from '../../src/keys/lifecycle.js';
import { rotateKeys } from '../../src/keys/rotation.js';
import { keysDirWithSigningKey, tempDir } from '../helpers/keys.js';

const now = () => Math.floor(Date.now() / 1000);
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi'];

t.test('Keystore', async (t) => {
  t.test('refuses to open a folder without a usable signing key', async (t) => {
    const empty = await tempDir(t);
    await t.rejects(Keystore.open(empty, now()), {
      message: `no signing key in ${empty}: create one with "oauth2-token-service keys rotate"`,
    });
    const future = await tempDir(t);
    await rotateKeys(future, { alg: 'ES256', delay: 0, accessTokenTtl: 60, now: now() - 1000 });
    await rotateKeys(future, { alg: 'ES256', delay: 0, accessTokenTtl: 60, now: now() - 500 });
    await t.rejects(Keystore.open(future, now() - 2000), {
      message: `no ES256 key in ${future} signs now (2 ES256 key file(s), none inside its signing window): run "oauth2-token-service keys rotate --alg ES256"`,
    });
    await t.rejects(Keystore.open(join(empty, 'missing'), now()), { message: /cannot read keys folder .*missing: no such folder/ });
  });

  t.test('names the file that cannot be used', async (t) => {
    const dir = await keysDirWithSigningKey(t);
    await writeFile(join(dir, 'bad.json'), JSON.stringify({ kid: 'bad', alg: 'HS256' }), { mode: 0o600 });
    await t.rejects(Keystore.open(dir, now()), { message: /^key file bad\.json: alg: / });
    await writeFile(join(dir, 'bad.json'), '[', { mode: 0o600 });
    await t.rejects(Keystore.open(dir, now()), { message: 'key file bad.json: not valid JSON' });
  });

  t.test('refuses a key file published for less time than it signs', async (t) => {
    const dir = await keysDirWithSigningKey(t);
    const [file] = (await readdir(dir)).filter((name) => name.endsWith('.json'));
    const record = JSON.parse(await readFile(join(dir, file as string), 'utf8')) as Record<string, unknown>;
    await writeFile(join(dir, file as string), JSON.stringify({ ...record, publish_until: now() + 60 }), { mode: 0o600 });
    await t.rejects(Keystore.open(dir, now()), {
      message: `key file ${file}: publish_until: publish_until needs a signs_until no later than it (a key is published for as long as it signs)`,
    });
    await writeFile(join(dir, file as string), JSON.stringify({ ...record, signs_until: now() + 120, publish_until: now() + 60 }), {
      mode: 0o600,
    });
    await t.rejects(Keystore.open(dir, now()), { message: /^key file .*: publish_until: publish_until needs a signs_until/ });
    await writeFile(join(dir, file as string), JSON.stringify({ ...record, signs_until: now() + 60, publish_until: now() + 120 }), {
      mode: 0o600,
    });
    t.equal((await Keystore.open(dir, now())).signingKeyAt(now())?.kid, record.kid, 'published past its signing window: accepted');
  });

  t.test('ignores the README, .gitignore and temporary files', async (t) => {
    const dir = await keysDirWithSigningKey(t);
    await writeFile(join(dir, 'README.md'), '# keys');
    await writeFile(join(dir, '.gitignore'), '*');
    await writeFile(join(dir, '.abc.123.tmp'), '{');
    const keystore = await Keystore.open(dir, now());
    t.equal(keystore.jwksAt(now()).keys.length, 1);
  });

  t.test('publishes public members only', async (t) => {
    for (const alg of ['ES256', 'EdDSA', 'RS256', 'PS256'] as const) {
      const dir = await keysDirWithSigningKey(t, { alg });
      const [jwk] = (await Keystore.open(dir, now())).jwksAt(now()).keys;
      for (const member of PRIVATE_MEMBERS) t.notOk(member in (jwk ?? {}), `${alg} JWK has no ${member}`);
      t.equal(jwk?.use, 'sig');
      t.equal(jwk?.alg, alg);
    }
  });

  t.test('a reload that fails keeps the previous keys', async (t) => {
    const dir = await keysDirWithSigningKey(t);
    const keystore = await Keystore.open(dir, now());
    const before = keystore.signingKeyAt(now())?.kid;
    await writeFile(join(dir, 'broken.json'), 'nope', { mode: 0o600 });
    const failed = await keystore.reload();
    t.equal(failed.ok, false);
    t.match(!failed.ok && failed.error.message, 'key file broken.json: not valid JSON');
    t.equal(keystore.signingKeyAt(now())?.kid, before);

    await rm(join(dir, 'broken.json'));
    await rotateKeys(dir, { alg: 'ES256', delay: 0, accessTokenTtl: 60 });
    t.same(await keystore.reload(), { ok: true, count: 2, warnings: [] });
    t.not(keystore.signingKeyAt(now())?.kid, before, 'the new key signs after a successful reload');
    t.equal((await readdir(dir)).length, 2);
  });
});

t.test('Keystore: a chain per algorithm', async (t) => {
  const NOW = 1_767_225_600;
  const rotate = (dir: string, alg: SigningAlgorithm, at: number, delay = 0) =>
    rotateKeys(dir, { alg, delay, accessTokenTtl: 60, now: at });

  t.test('signingKeyFor: the signer of each chain, never one of another; signingKeyAt: the access-token chain', async (t) => {
    const dir = await tempDir(t);
    await rotate(dir, 'ES256', NOW - 100);
    await rotate(dir, 'RS256', NOW - 50);
    await rotate(dir, 'RS256', NOW, 300);
    const keys = await readKeyFolder(dir);
    const kidOf = (alg: SigningAlgorithm, at: number) => signingKeyAt(chainOf(keys, alg), at)?.kid;
    const keystore = await Keystore.open(dir, NOW);
    t.equal(keystore.accessTokenAlgorithm, 'ES256');
    t.equal(keystore.signingKeyAt(NOW)?.kid, kidOf('ES256', NOW), 'access tokens: ES256, although an RS256 key is newer');
    t.equal(keystore.signingKeyFor('ES256', NOW)?.kid, kidOf('ES256', NOW));
    t.equal(keystore.signingKeyFor('RS256', NOW)?.kid, kidOf('RS256', NOW));
    t.not(
      keystore.signingKeyFor('RS256', NOW + 300)?.kid,
      keystore.signingKeyFor('RS256', NOW)?.kid,
      'the RS256 successor signs after its delay',
    );
    t.equal(keystore.signingKeyFor('RS256', NOW + 300)?.alg, 'RS256');
    t.equal(keystore.signingKeyFor('PS256', NOW), undefined, 'no PS256 chain: undefined, not a key of another algorithm');
    t.equal(keystore.signingKeyFor('RS256', NOW - 80), undefined, 'before the RS256 chain started');
    t.same(keystore.signingAlgorithmsAt(NOW), ['ES256', 'RS256']);
    t.same(keystore.signingAlgorithmsAt(NOW - 80), ['ES256']);
    t.equal(keystore.nextSigningKeyAfter(NOW), undefined, 'the metrics follow the access-token chain: no ES256 successor');
    t.equal(keystore.jwksAt(NOW).keys.length, 3, 'the JWKS publishes every chain');
  });

  t.test('accessTokenAlg (ACCESS_TOKEN_SIGNING_ALG) chooses the access-token chain; the folder must have a signer of it', async (t) => {
    const dir = await tempDir(t);
    await rotate(dir, 'ES256', NOW - 100);
    await t.rejects(Keystore.open(dir, NOW, { accessTokenAlg: 'RS256' }), {
      message: `no RS256 key in ${dir}, which ACCESS_TOKEN_SIGNING_ALG names for access tokens: create one with "oauth2-token-service keys rotate --alg RS256"`,
    });
    await rotate(dir, 'RS256', NOW - 50);
    const keystore = await Keystore.open(dir, NOW, { accessTokenAlg: 'RS256' });
    t.equal(keystore.accessTokenAlgorithm, 'RS256');
    t.equal(keystore.signingKeyAt(NOW)?.alg, 'RS256');
    await t.rejects(Keystore.open(dir, NOW - 80, { accessTokenAlg: 'RS256' }), {
      message: /^no RS256 key in .* signs now \(1 RS256 key file\(s\)/,
    });
    t.equal((await Keystore.open(dir, NOW - 80)).signingKeyAt(NOW - 80)?.alg, 'ES256', 'unset: ES256, which signs then');
  });

  t.test(
    'unset: a folder from before chains signs with the chain it had; ES256 once it has ES256 keys (from the next reload)',
    async (t) => {
      const dir = await tempDir(t);
      await rotate(dir, 'PS256', NOW - 100);
      await rotate(dir, 'RS256', NOW - 50);
      const keystore = await Keystore.open(dir, NOW);
      t.equal(keystore.accessTokenAlgorithm, 'PS256', 'the RS256 chain started for ID tokens does not take over');
      t.equal(keystore.signingKeyAt(NOW)?.alg, 'PS256');
      await rotate(dir, 'ES256', NOW);
      t.equal(keystore.accessTokenAlgorithm, 'PS256', 'until the folder is reloaded');
      t.match(await keystore.reload(), { ok: true, count: 3 });
      t.equal(keystore.accessTokenAlgorithm, 'ES256');
      t.equal(keystore.signingKeyAt(NOW)?.alg, 'ES256');
    },
  );
});

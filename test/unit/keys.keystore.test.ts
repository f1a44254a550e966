import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { Keystore } from '../../src/keys/keystore.js';
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
    await rotateKeys(future, { delay: 0, accessTokenTtl: 60, now: now() - 1000 });
    await rotateKeys(future, { delay: 0, accessTokenTtl: 60, now: now() - 500 });
    await t.rejects(Keystore.open(future, now() - 2000), { message: /none inside its signing window/ });
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
    await rotateKeys(dir, { delay: 0, accessTokenTtl: 60 });
    t.same(await keystore.reload(), { ok: true, count: 2, warnings: [] });
    t.not(keystore.signingKeyAt(now())?.kid, before, 'the new key signs after a successful reload');
    t.equal((await readdir(dir)).length, 2);
  });
});

import t from 'tap';
import { chmod, readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createLocalJWKSet, jwtVerify } from 'jose';
import { generateKeyRecord, keyFileName, readKeyFolder, writeKeyFile, type KeyRecord } from '../src/keys/key-file.js';
import { Keystore } from '../src/keys/keystore.js';
import { rotateKeys } from '../src/keys/rotation.js';
import { AccessTokens } from '../src/tokens/access-token.js';
import { tempDir } from './helpers/keys.js';
import { runNode } from './helpers/process.js';

const rotate = (args: string[], env: Record<string, string> = {}) => runNode('scripts/rotate-keys.js', args, env);
const now = () => Math.floor(Date.now() / 1000);
const iso = (seconds: number) => new Date(seconds * 1000).toISOString();

/** Writes a key with the given kid and times (a kid need not be a thumbprint to be revocable). */
async function writeKey(dir: string, fields: Partial<KeyRecord> & { kid: string }): Promise<KeyRecord> {
  const generated = await generateKeyRecord('ES256', now(), now());
  const record = { ...generated, ...fields, jwk: { ...generated.jwk, kid: fields.kid } };
  await writeKeyFile(dir, record);
  return record;
}

t.test('npm run keys:rotate', async (t) => {
  t.test('the first run creates a key that signs at once, in a 0600 file', async (t) => {
    const dir = await tempDir(t);
    const run = await rotate(['--dir', dir]);
    t.equal(run.code, 0, run.stderr);
    const [record] = await readKeyFolder(dir);
    t.match(run.stdout, new RegExp(`^created  ${record?.kid} ES256 published now, signs from \\S+\\n$`));
    t.equal(record?.signs_until, undefined);
    t.ok(Math.abs((record?.signs_from ?? 0) - now()) <= 2);
    t.equal((await stat(join(dir, `${record?.kid}.json`))).mode & 0o777, 0o600);
    t.same((await readdir(dir)).length, 1, 'no lock or temporary file is left behind');
  });

  t.test('a later run publishes a new key that signs only after the delay', async (t) => {
    const dir = await tempDir(t);
    await rotate(['--dir', dir]);
    const [first] = await readKeyFolder(dir);
    const run = await rotate(['--dir', dir, '--delay', '300', '--access-token-ttl', '600']);
    t.equal(run.code, 0, run.stderr);
    const lines = run.stdout.trim().split('\n');
    t.equal(lines.length, 2, 'one line per key');
    t.match(lines[0], new RegExp(`^retiring ${first?.kid} ES256 signs until`));
    t.match(lines[1], /^created  \S+ ES256 published now, signs from/);
    const keys = await readKeyFolder(dir);
    const fresh = keys.find((k) => k.kid !== first?.kid);
    const retired = keys.find((k) => k.kid === first?.kid);
    t.ok(fresh && retired);
    t.equal(fresh?.signs_from, retired?.signs_until);
    t.equal(retired?.publish_until, (retired?.signs_until ?? 0) + 600);
    t.ok(Math.abs((fresh?.signs_from ?? 0) - (now() + 300)) <= 2);

    const keystore = await Keystore.open(dir, now());
    t.equal(keystore.signingKeyAt(now())?.kid, first?.kid, 'the old key still signs during the delay');
    t.same(keystore.jwksAt(now()).keys.map((k) => k.kid).sort(), [first?.kid, fresh?.kid].sort(), 'both are published');
    t.equal(keystore.signingKeyAt(now() + 301)?.kid, fresh?.kid, 'the new key signs after the delay');
  });

  t.test('--delay defaults to JWKS_CACHE_TTL and the lifetime to ACCESS_TOKEN_TTL', async (t) => {
    const dir = await tempDir(t);
    await rotate(['--dir', dir]);
    await rotate([], { KEYS_DIR: dir, JWKS_CACHE_TTL: '120', ACCESS_TOKEN_TTL: '60' });
    const keys = await readKeyFolder(dir);
    const retired = keys.find((k) => k.signs_until !== undefined);
    t.ok(Math.abs((retired?.signs_until ?? 0) - (now() + 120)) <= 2);
    t.equal(retired?.publish_until, (retired?.signs_until ?? 0) + 60);
  });

  for (const alg of ['ES256', 'EdDSA', 'RS256', 'PS256']) {
    t.test(`--alg ${alg} makes a key the server signs with and the JWKS verifies`, async (t) => {
      const dir = await tempDir(t);
      const run = await rotate(['--dir', dir, '--alg', alg]);
      t.equal(run.code, 0, run.stderr);
      const keystore = await Keystore.open(dir, now());
      const issuer = new AccessTokens(keystore, { issuer: 'https://as', audience: 'api', ttlSeconds: 60 }, Date.now);
      const { token } = await issuer.issue({ subject: 's', clientId: 'c', scope: ['read'] });
      const jwks = keystore.jwksAt(now());
      t.equal(jwks.keys[0]?.alg, alg);
      const { protectedHeader } = await jwtVerify(token, createLocalJWKSet(jwks), { issuer: 'https://as', audience: 'api' });
      t.equal(protectedHeader.alg, alg);
    });
  }

  t.test('--revoke takes any kid, even one that begins with "-", and a replacement signs at once', async (t) => {
    for (const [kid, args] of [
      ['-revoke-me', ['--revoke', '-revoke-me']],
      ['--prune', ['--revoke=--prune']],
    ] as const) {
      const dir = await tempDir(t);
      await writeKey(dir, { kid, signs_from: now() - 60 });
      const run = await rotate(['--dir', dir, ...args]);
      t.equal(run.code, 0, run.stderr);
      const [replacement] = await readKeyFolder(dir);
      t.not(replacement?.kid, kid);
      t.equal(
        run.stdout,
        `created  ${replacement?.kid} ES256 published now, signs from ${iso(replacement?.signs_from as number)} (replaces revoked ${kid})\n` +
          `revoked  ${kid} ES256 removed at once: its tokens fail once verifiers refresh their JWKS\n`,
      );
      t.ok((await Keystore.open(dir, now())).signingKeyAt(now()), 'a key signs right away');
    }
  });

  t.test('--revoke of the scheduled key extends the current one and says so', async (t) => {
    const dir = await tempDir(t);
    await rotate(['--dir', dir]);
    const [current] = await readKeyFolder(dir);
    await rotate(['--dir', dir, '--delay', '300']);
    const scheduled = (await readKeyFolder(dir)).find((k) => k.kid !== current?.kid) as KeyRecord;
    const run = await rotate(['--dir', dir, '--revoke', scheduled.kid]);
    t.equal(run.code, 0, run.stderr);
    t.equal(
      run.stdout,
      `extended ${current?.kid} ES256 signs until open-ended instead of ${iso(scheduled.signs_from)} (no other key would sign from then), published until open-ended\n` +
        `revoked  ${scheduled.kid} ES256 removed at once: its tokens fail once verifiers refresh their JWKS\n`,
    );
    const keystore = await Keystore.open(dir, now());
    t.equal(keystore.signingKeyAt(now() + 100_000)?.kid, current?.kid, 'the current key signs on, with no end');
  });

  t.test('--prune deletes keys whose tokens have all expired', async (t) => {
    const dir = await tempDir(t);
    const long = now() - 10_000;
    await rotateKeys(dir, { delay: 0, accessTokenTtl: 60, now: long });
    await rotateKeys(dir, { delay: 0, accessTokenTtl: 60, now: long + 100 });
    const [expired, current] = (await readKeyFolder(dir)).sort((a, b) => a.signs_from - b.signs_from);
    const run = await rotate(['--dir', dir, '--prune']);
    t.equal(run.code, 0, run.stderr);
    t.match(run.stdout, new RegExp(`deleted  ${expired?.kid} ES256 removed: every token it signed expired at`));
    t.match(run.stdout, new RegExp(`kept     ${current?.kid} ES256`));
    t.same((await readKeyFolder(dir)).map((k) => k.kid), [current?.kid]);
  });

  t.test('--prune in a folder where no key signs any more puts in one that signs at once', async (t) => {
    const dir = await tempDir(t);
    const orphan = await writeKey(dir, { kid: 'orphan', created_at: now() - 9000, signs_from: now() - 9000, signs_until: now() - 8000, publish_until: now() - 4400 });
    const run = await rotate(['--dir', dir, '--prune']);
    t.equal(run.code, 0, run.stderr);
    const [spare] = await readKeyFolder(dir);
    t.equal(
      run.stdout,
      `created  ${spare?.kid} ES256 published now, signs from ${iso(spare?.signs_from as number)} (no other key signs now)\n` +
        `deleted  orphan ES256 removed: every token it signed expired at ${iso(orphan.publish_until as number)}\n`,
    );
    t.equal((await Keystore.open(dir, now())).signingKeyAt(now())?.kid, spare?.kid);
  });

  t.test('a key file others can read is a warning on stderr; the run goes on', async (t) => {
    const dir = await tempDir(t);
    await rotate(['--dir', dir]);
    const [first] = await readKeyFolder(dir);
    const file = join(dir, keyFileName(first?.kid as string));
    await chmod(file, 0o644);
    const run = await rotate(['--dir', dir, '--prune']);
    t.equal(run.code, 0);
    t.equal(run.stderr, `warning: key file ${file} is readable by others (mode 0644): fix it with "chmod o-r ${file}" (a Kubernetes secret volume: defaultMode: 0400)\n`);
    t.match(run.stdout, /^kept {5}/);
  });

  t.test('failures exit non-zero with one clear line', async (t) => {
    const dir = await tempDir(t);
    const cases: [string[], RegExp][] = [
      [['--dir', dir, '--alg', 'HS256'], /^error: --alg must be one of ES256, EdDSA, RS256, PS256\n$/],
      [['--dir', dir, '--delay', 'soon'], /^error: --delay must be a whole number of seconds\n$/],
      [['--dir', dir, '--revoke', 'nope'], /^error: no key with kid nope in /],
      [['--dir', dir, '--bogus'], /^error: Unknown option '--bogus'/],
    ];
    for (const [args, message] of cases) {
      const run = await rotate(args);
      t.equal(run.code, 1, args.join(' '));
      t.match(run.stderr, message);
    }
    await writeFile(join(dir, 'broken.json'), '{"kid":', { mode: 0o600 });
    const broken = await rotate(['--dir', dir]);
    t.equal(broken.code, 1);
    t.equal(broken.stderr, 'error: key file broken.json: not valid JSON\n');

    const open = await tempDir(t);
    await chmod(open, 0o777);
    const unsafe = await rotate(['--dir', open]);
    t.equal(unsafe.code, 1);
    t.equal(unsafe.stderr, `error: keys folder ${open} is writable by group or others (mode 0777), so anyone there can plant a signing key: fix it with "chmod go-w ${open}"\n`);
    t.same(await readdir(open), [], 'nothing is written into it');
  });
});

import { chmod, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { generateKeyRecord, keyFileName, readKeyFolder, writeKeyFile } from '../../src/keys/key-file.js';
import { rotateKeys } from '../../src/keys/rotation.js';
import { tempDir } from '../helpers/keys.js';
import { runNode } from '../helpers/process.js';

/**
 * The script as operators run it: arguments, environment, exit codes, stdout and stderr.
 * What each run does to the folder is tested in-process (test/unit/keys.rotation.test.ts).
 */

const rotate = (args: string[], env: Record<string, string> = {}) => runNode('scripts/rotate-keys.js', args, env);
const now = () => Math.floor(Date.now() / 1000);

t.test('npm run keys:rotate', async (t) => {
  t.test('success: one line per change on stdout, nothing on stderr, exit 0; defaults from the environment', async (t) => {
    const dir = await tempDir(t);
    const first = await rotate(['--dir', dir]);
    t.same([first.code, first.stderr], [0, '']);
    const [record] = await readKeyFolder(dir);
    t.match(first.stdout, new RegExp(`^created  ${record?.kid} ES256 published now, signs from \\S+\\n$`));

    const second = await rotate([], { KEYS_DIR: dir, JWKS_CACHE_TTL: '120', ACCESS_TOKEN_TTL: '60' });
    t.same([second.code, second.stderr], [0, '']);
    const lines = second.stdout.trim().split('\n');
    t.equal(lines.length, 2, 'one line per key');
    t.match(lines[0], new RegExp(`^retiring ${record?.kid} ES256 signs until`));
    t.match(lines[1], /^created {2}\S+ ES256 published now, signs from/);
    const retired = (await readKeyFolder(dir)).find((k) => k.kid === record?.kid);
    t.ok(Math.abs((retired?.signs_until ?? 0) - (now() + 120)) <= 2, '--delay defaults to JWKS_CACHE_TTL');
    t.equal(retired?.publish_until, (retired?.signs_until ?? 0) + 60, 'the token lifetime defaults to ACCESS_TOKEN_TTL');
  });

  t.test('--revoke takes any kid, even one that begins with "-"', async (t) => {
    for (const [kid, args] of [
      ['-revoke-me', ['--revoke', '-revoke-me']],
      ['--prune', ['--revoke=--prune']],
    ] as const) {
      const dir = await tempDir(t);
      const generated = await generateKeyRecord('ES256', now() - 60, now() - 60);
      await writeKeyFile(dir, { ...generated, kid, jwk: { ...generated.jwk, kid } });
      const run = await rotate(['--dir', dir, ...args]);
      t.equal(run.code, 0, run.stderr);
      t.match(run.stdout, new RegExp(`\\(replaces revoked ${kid}\\)\\nrevoked  ${kid} ES256 removed at once`));
      t.notOk(
        (await readKeyFolder(dir)).some((k) => k.kid === kid),
        `${kid} is gone`,
      );
    }
  });

  t.test('a warning goes to stderr and the run goes on (exit 0)', async (t) => {
    const dir = await tempDir(t);
    await rotateKeys(dir, { delay: 0, accessTokenTtl: 3600 });
    const [first] = await readKeyFolder(dir);
    const file = join(dir, keyFileName(first?.kid as string));
    await chmod(file, 0o644);
    const run = await rotate(['--dir', dir, '--prune']);
    t.equal(run.code, 0);
    t.equal(
      run.stderr,
      `warning: key file ${file} is readable by others (mode 0644): fix it with "chmod o-r ${file}" (a Kubernetes secret volume: defaultMode: 0400)\n`,
    );
    t.match(run.stdout, /^kept {5}/);
  });

  t.test('failures: one line on stderr, nothing on stdout, exit 1', async (t) => {
    const dir = await tempDir(t);
    const open = await tempDir(t);
    await chmod(open, 0o777);
    const cases: [string[], string | RegExp][] = [
      [['--dir', dir, '--alg', 'HS256'], 'error: --alg must be one of ES256, EdDSA, RS256, PS256\n'],
      [['--dir', dir, '--delay', 'soon'], 'error: --delay must be a whole number of seconds\n'],
      [['--dir', dir, '--bogus'], /^error: Unknown option '--bogus'[^\n]*\n$/],
      [['--dir', dir, '--revoke', 'nope'], `error: no key with kid nope in ${dir}\n`],
      [
        ['--dir', open],
        `error: keys folder ${open} is writable by group or others (mode 0777), so anyone there can plant a signing key: fix it with "chmod go-w ${open}"\n`,
      ],
    ];
    for (const [args, stderr] of cases) {
      const run = await rotate(args);
      t.equal(run.code, 1, args.join(' '));
      t.equal(run.stdout, '');
      if (typeof stderr === 'string') t.equal(run.stderr, stderr);
      else t.match(run.stderr, stderr);
    }
    t.same(await readdir(open), [], 'nothing is written into an unsafe folder');
  });
});

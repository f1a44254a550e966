import { hostname, userInfo } from 'node:os';
import { chmod, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { type KeyRecord, keyFileName, readKeyFolder } from '../../src/keys/key-file.js';
import { rotateKeys } from '../../src/keys/rotation.js';
import { runCommand } from '../helpers/cli.js';
import { tempDir, writeKeyWith } from '../helpers/keys.js';

/**
 * `oauth2-token-service keys …` as operators run it: arguments, environment, exit codes,
 * stdout and stderr, in-process at an injected time. What each run does to the folder is
 * tested in test/unit/keys.rotation.test.ts.
 */

const NOW = 1_767_225_600; // 2026-01-01T00:00:00Z
const iso = (seconds: number) => new Date(seconds * 1000).toISOString();
const at = (seconds: number) => () => seconds * 1000;
const keys = (args: string[], env: Record<string, string> = {}, now = NOW) => runCommand(['keys', ...args], { env, clock: at(now) });

const writeKey = (dir: string, fields: Partial<KeyRecord> & { kid: string }) => writeKeyWith(dir, NOW - 60, fields);
const ORDER = ['ES256', 'EdDSA', 'RS256', 'PS256'];
/** The folder's keys, chain by chain, each chain in creation order. */
const chains = async (dir: string) =>
  (await readKeyFolder(dir)).sort(
    (a, b) => ORDER.indexOf(a.alg) - ORDER.indexOf(b.alg) || a.created_at - b.created_at || a.signs_from - b.signs_from,
  );

t.test('keys rotate', async (t) => {
  t.test('success: one line per change on stdout, nothing on stderr, exit 0; defaults from the environment', async (t) => {
    const dir = await tempDir(t);
    const first = await keys(['rotate', '--dir', dir]);
    t.same([first.code, first.stderr], [0, '']);
    const [es, rs] = await chains(dir);
    t.equal(
      first.stdout,
      `created  ${es?.kid} ES256 published now, signs from ${iso(NOW)}\n` +
        `created  ${rs?.kid} RS256 published now, signs from ${iso(NOW)}\n`,
      'a first run starts the ES256 chain (access tokens) and the RS256 chain (ID tokens)',
    );

    const second = await keys(['rotate'], { KEYS_DIR: dir, JWKS_CACHE_TTL: '120', ACCESS_TOKEN_TTL: '60' }, NOW + 10);
    t.same([second.code, second.stderr], [0, '']);
    const fresh = (await chains(dir)).filter((k) => k.kid !== es?.kid && k.kid !== rs?.kid);
    t.equal(
      second.stdout,
      `retiring ${es?.kid} ES256 signs until ${iso(NOW + 130)}, published until ${iso(NOW + 190)}\n` +
        `created  ${fresh[0]?.kid} ES256 published now, signs from ${iso(NOW + 130)}\n` +
        `retiring ${rs?.kid} RS256 signs until ${iso(NOW + 130)}, published until ${iso(NOW + 190)}\n` +
        `created  ${fresh[1]?.kid} RS256 published now, signs from ${iso(NOW + 130)}\n`,
      'every chain rotates; --delay defaults to JWKS_CACHE_TTL, the token lifetime to ACCESS_TOKEN_TTL',
    );
  });

  t.test('--alg: that chain only, started at once when new; --delay and --access-token-ttl', async (t) => {
    const dir = await tempDir(t);
    await keys(['rotate', '--dir', dir]);
    const started = await keys(['rotate', '--dir', dir, '--alg', 'EdDSA', '--delay', '30'], {}, NOW + 1);
    t.equal(started.code, 0, started.stderr);
    const eddsa = (await chains(dir)).find((k) => k.alg === 'EdDSA');
    t.equal(started.stdout, `created  ${eddsa?.kid} EdDSA published now, signs from ${iso(NOW + 1)}\n`, 'a new chain signs at once');
    const run = await keys(['rotate', '--dir', dir, '--alg', 'ES256', '--delay', '30', '--access-token-ttl', '600'], {}, NOW + 1);
    t.equal(run.code, 0, run.stderr);
    t.match(run.stdout, /^retiring \S+ ES256 .*\ncreated {2}\S+ ES256 .*\n$/, 'ES256 lines only');
    const created = (await chains(dir)).filter((k) => k.alg === 'ES256').find((k) => k.signs_from > NOW);
    t.match(created, { signs_from: NOW + 31 });
    t.match(run.stdout, `published until ${iso(NOW + 31 + 600)}`);
  });

  t.test('ACCESS_TOKEN_SIGNING_ALG names the access-token chain a run starts beside RS256', async (t) => {
    const dir = await tempDir(t);
    const run = await keys(['rotate', '--dir', dir], { ACCESS_TOKEN_SIGNING_ALG: 'EdDSA' });
    t.equal(run.code, 0, run.stderr);
    t.same(
      (await chains(dir)).map((k) => k.alg),
      ['EdDSA', 'RS256'],
    );
    const bad = await keys(['rotate', '--dir', dir], { ACCESS_TOKEN_SIGNING_ALG: 'HS256' });
    t.same([bad.code, bad.stdout, bad.stderr], [1, '', 'error: ACCESS_TOKEN_SIGNING_ALG must be one of ES256, EdDSA, RS256, PS256\n']);
  });

  t.test('a warning goes to stderr and the run goes on (exit 0)', async (t) => {
    const dir = await tempDir(t);
    await rotateKeys(dir, { alg: 'ES256', delay: 0, accessTokenTtl: 3600, now: NOW });
    const [first] = await readKeyFolder(dir);
    const file = join(dir, keyFileName(first?.kid as string));
    await chmod(file, 0o644);
    const run = await keys(['prune', '--dir', dir]);
    t.equal(run.code, 0);
    t.equal(
      run.stderr,
      `warning: key file ${file} is readable by others (mode 0644): fix it with "chmod o-r ${file}" (a Kubernetes secret volume: defaultMode: 0400)\n`,
    );
    t.match(run.stdout, /^kept {5}/);
  });

  t.test('usage errors: the message and the usage on stderr, nothing on stdout, exit 2', async (t) => {
    const dir = await tempDir(t);
    const usage =
      'usage: oauth2-token-service keys rotate [--dir DIR] [--alg ES256|EdDSA|RS256|PS256] [--delay SECONDS] [--access-token-ttl SECONDS]';
    const cases: [string[], string][] = [
      [['--dir', dir, '--alg', 'HS256'], 'error: --alg must be one of ES256, EdDSA, RS256, PS256'],
      [['--dir', dir, '--delay', 'soon'], 'error: --delay must be a whole number of seconds'],
      [['--dir', dir, '--access-token-ttl', '-1'], "error: Option '--access-token-ttl' argument is ambiguous."],
      [['--dir', dir, '--bogus'], "error: Unknown option '--bogus'"],
      [['--dir', dir, 'extra'], "error: unexpected argument 'extra'"],
      [['--dir', dir, '--revoke', 'kid'], "error: Unknown option '--revoke'"],
    ];
    for (const [args, message] of cases) {
      const run = await keys(['rotate', ...args]);
      t.equal(run.code, 2, args.join(' '));
      t.equal(run.stdout, '');
      t.match(run.stderr, `${message}`);
      t.ok(run.stderr.endsWith(`\n${usage}\n`), `${args.join(' ')}: the usage follows`);
    }
    t.same(await readdir(dir), [], 'nothing was written');
  });

  t.test('operational failures: one line on stderr, nothing on stdout, exit 1', async (t) => {
    const open = await tempDir(t);
    await chmod(open, 0o777);
    const unsafe = await keys(['rotate', '--dir', open]);
    t.same(
      [unsafe.code, unsafe.stdout, unsafe.stderr],
      [
        1,
        '',
        `error: keys folder ${open} is writable by group or others (mode 0777), so anyone there can plant a signing key: fix it with "chmod go-w ${open}"\n`,
      ],
    );
    t.same(await readdir(open), [], 'nothing is written into an unsafe folder');

    const locked = await tempDir(t);
    await writeFile(join(locked, '.rotate.lock'), '');
    const held = await keys(['rotate', '--dir', locked]);
    t.same(
      [held.code, held.stdout, held.stderr],
      [1, '', `error: another rotation holds ${join(locked, '.rotate.lock')}; try again later\n`],
    );

    const badEnv = await keys(['rotate'], { KEYS_DIR: locked, JWKS_CACHE_TTL: 'soon' });
    t.same([badEnv.code, badEnv.stderr], [1, 'error: JWKS_CACHE_TTL must be a whole number of seconds\n']);
  });
});

t.test('keys revoke <kid>', async (t) => {
  t.test('takes any kid, even one that begins with "-" or looks like an option', async (t) => {
    const cases: [string, (dir: string) => string[]][] = [
      ['-revoke-me', (dir) => ['-revoke-me', '--dir', dir]],
      ['--prune', (dir) => ['--dir', dir, '--prune']],
      ['--dir', (dir) => ['--dir', dir, '--', '--dir']],
    ];
    for (const [kid, args] of cases) {
      const dir = await tempDir(t);
      await writeKey(dir, { kid });
      const run = await keys(['revoke', ...args(dir)]);
      t.equal(run.code, 0, run.stderr);
      const [replacement] = await readKeyFolder(dir);
      t.equal(
        run.stdout,
        `created  ${replacement?.kid} ES256 published now, signs from ${iso(NOW)} (replaces revoked ${kid})\n` +
          `revoked  ${kid} ES256 removed at once: its tokens fail once verifiers refresh their JWKS\n`,
      );
      t.not(replacement?.kid, kid, `${kid} is gone`);
      // The audit line on stderr, shaped as the servers' (README, "Audit events").
      const [line, ...rest] = run.stderr.split('\n');
      t.same(rest, [''], 'stderr: the audit line alone');
      const { level, time, pid, audit, msg, ...event } = JSON.parse(line ?? '') as Record<string, unknown>;
      t.same({ level, time, pid, audit, msg }, { level: 30, time: NOW * 1000, pid: process.pid, audit: true, msg: 'key.revoked' });
      t.same(event, { hostname: hostname(), event: 'key.revoked', kid, replacementKid: replacement?.kid, operator: userInfo().username });
    }
  });

  t.test('--dir=DIR and KEYS_DIR work too; an unknown kid is exit 1; a missing kid is exit 2', async (t) => {
    const dir = await tempDir(t);
    await writeKey(dir, { kid: 'current' });
    const unknown = await keys(['revoke', 'nope', `--dir=${dir}`]);
    t.same([unknown.code, unknown.stdout, unknown.stderr], [1, '', `error: no key with kid nope in ${dir}\n`]);
    const missing = await keys(['revoke'], { KEYS_DIR: dir });
    t.same(
      [missing.code, missing.stderr],
      [2, 'error: missing <kid>\nusage: oauth2-token-service keys revoke <kid> [--dir DIR] [--access-token-ttl SECONDS]\n'],
    );
    const two = await keys(['revoke', 'a', 'b'], { KEYS_DIR: dir });
    t.equal(two.code, 2);
    t.match(two.stderr, /^error: unexpected argument 'b'\n/);
    const withAlg = await keys(['revoke', 'current', '--alg', 'RS256'], { KEYS_DIR: dir });
    t.same(
      [withAlg.code, withAlg.stderr.split('\n')[0]],
      [2, "error: unexpected argument '--alg'"],
      'no --alg: a replacement keeps its chain',
    );
    await writeKey(dir, { kid: 'current-rs', alg: 'RS256' });
    const revoked = await keys(['revoke', 'current-rs'], { KEYS_DIR: dir });
    t.equal(revoked.code, 0, revoked.stderr);
    t.same(
      (await chains(dir)).map((k) => [k.kid === 'current' ? k.kid : 'replacement', k.alg]),
      [
        ['current', 'ES256'],
        ['replacement', 'RS256'],
      ],
      "the replacement has the revoked key's algorithm",
    );
  });
});

t.test('keys list', async (t) => {
  t.test('each key with its state and times, in signing order; never key material', async (t) => {
    const dir = await tempDir(t);
    const expired = await writeKey(dir, {
      kid: 'old',
      created_at: NOW - 9000,
      signs_from: NOW - 9000,
      signs_until: NOW - 5000,
      publish_until: NOW - 1000,
    });
    const retiring = await writeKey(dir, {
      kid: 'prev',
      created_at: NOW - 5000,
      signs_from: NOW - 5000,
      signs_until: NOW - 100,
      publish_until: NOW + 3500,
    });
    const signing = await writeKey(dir, {
      kid: 'cur',
      created_at: NOW - 400,
      signs_from: NOW - 100,
      signs_until: NOW + 200,
      publish_until: NOW + 3800,
    });
    const scheduled = await writeKey(dir, { kid: 'next', created_at: NOW - 10, signs_from: NOW + 200 });
    // The middle one of two quick rotations: its window closed before it opened.
    const skipped = await writeKey(dir, {
      kid: 'skipped',
      created_at: NOW - 20,
      signs_from: NOW + 200,
      signs_until: NOW + 200,
      publish_until: NOW + 3800,
    });
    const run = await keys(['list', '--dir', dir]);
    t.same([run.code, run.stderr], [0, '']);
    t.equal(
      run.stdout,
      [
        `old ES256 expired   signs ${iso(NOW - 9000)} to ${iso(NOW - 5000)}, published until ${iso(NOW - 1000)}, created ${iso(NOW - 9000)}`,
        `prev ES256 retiring  signs ${iso(NOW - 5000)} to ${iso(NOW - 100)}, published until ${iso(NOW + 3500)}, created ${iso(NOW - 5000)}`,
        `cur ES256 signing   signs ${iso(NOW - 100)} to ${iso(NOW + 200)}, published until ${iso(NOW + 3800)}, created ${iso(NOW - 400)}`,
        `skipped ES256 retiring  signs ${iso(NOW + 200)} to ${iso(NOW + 200)}, published until ${iso(NOW + 3800)}, created ${iso(NOW - 20)}`,
        `next ES256 scheduled signs ${iso(NOW + 200)} to open-ended, published until open-ended, created ${iso(NOW - 10)}`,
        '',
      ].join('\n'),
    );
    for (const key of [expired, retiring, signing, scheduled, skipped]) t.notMatch(run.stdout, key.jwk.d, 'no private key');

    const later = await keys(['list'], { KEYS_DIR: dir }, NOW + 200);
    t.match(later.stdout, /^cur ES256 retiring /m, 'states follow the clock');
    t.match(later.stdout, /^next ES256 signing /m);
  });

  t.test('chain by chain: each chain in its signing order, ES256 before RS256 whatever the times', async (t) => {
    const dir = await tempDir(t);
    await writeKey(dir, {
      kid: 'rs-old',
      alg: 'RS256',
      created_at: NOW - 900,
      signs_from: NOW - 900,
      signs_until: NOW + 100,
      publish_until: NOW + 3700,
    });
    await writeKey(dir, { kid: 'es-cur', created_at: NOW - 500, signs_from: NOW - 500 });
    await writeKey(dir, { kid: 'rs-next', alg: 'RS256', created_at: NOW - 10, signs_from: NOW + 100 });
    await writeKey(dir, { kid: 'ed-cur', alg: 'EdDSA', created_at: NOW - 700, signs_from: NOW - 700 });
    const run = await keys(['list', '--dir', dir]);
    t.same([run.code, run.stderr], [0, '']);
    t.same(
      run.stdout.split('\n').map((line) => line.split(' ').slice(0, 3).join(' ')),
      ['es-cur ES256 signing', 'ed-cur EdDSA signing', 'rs-old RS256 signing', 'rs-next RS256 scheduled', ''],
      'each chain has its signing key',
    );
  });

  t.test('a chain where nothing signs now: a warning naming its algorithm and the command', async (t) => {
    const dir = await tempDir(t);
    await writeKey(dir, { kid: 'es', created_at: NOW - 500, signs_from: NOW - 500 });
    await writeKey(dir, { kid: 'rs', alg: 'RS256', created_at: NOW - 500, signs_from: NOW + 100 });
    const run = await keys(['list', '--dir', dir]);
    t.same(
      [run.code, run.stderr],
      [0, `warning: no RS256 key in ${dir} signs now: nothing is signed with RS256 (run "oauth2-token-service keys rotate --alg RS256")\n`],
    );
    const psAccess = await keys(['list', '--dir', dir], { ACCESS_TOKEN_SIGNING_ALG: 'PS256' });
    t.equal(
      psAccess.stderr,
      `warning: no RS256 key in ${dir} signs now: nothing is signed with RS256 (run "oauth2-token-service keys rotate --alg RS256")\n` +
        `warning: no PS256 key in ${dir} signs now: the server refuses to start (run "oauth2-token-service keys rotate --alg PS256")\n`,
      'the access-token chain of ACCESS_TOKEN_SIGNING_ALG, even without keys',
    );
  });

  t.test('a folder where nothing signs now: a warning; a missing folder: exit 1', async (t) => {
    const dir = await tempDir(t);
    const empty = await keys(['list', '--dir', dir]);
    t.same(
      [empty.code, empty.stdout, empty.stderr],
      [0, '', `warning: no key in ${dir} signs now: the server refuses to start (run "oauth2-token-service keys rotate")\n`],
    );
    const missing = await keys(['list', '--dir', join(dir, 'missing')]);
    t.equal(missing.code, 1);
    t.match(missing.stderr, /^error: cannot read keys folder .*missing: no such folder/);
  });
});

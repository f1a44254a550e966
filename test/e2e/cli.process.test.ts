import { join } from 'node:path';
import t from 'tap';
import { TOOL_HELP } from '../../src/cli/dispatch.js';
import { readKeyFolder } from '../../src/keys/key-file.js';
import { UserRegistry } from '../../src/users/registry.js';
import { newGrantId } from '../../src/tokens/opaque.js';
import { tempDir } from '../helpers/keys.js';
import { CLI, runNode } from '../../harness/process.js';
import { redisStore } from '../helpers/redis-stores.js';

/**
 * The built `oauth2-token-service` as a process: one run per exit code and stream
 * behaviour. Everything else about the commands is tested in-process (test/unit/cli.*).
 */

t.test('--help: the help on stdout, exit 0', async (t) => {
  const run = await runNode(CLI, ['--help']);
  t.same([run.code, run.stdout, run.stderr], [0, `${TOOL_HELP}\n`, '']);
});

t.test('success: lines on stdout, nothing on stderr, exit 0; defaults from the environment', async (t) => {
  const dir = join(await tempDir(t), 'keys');
  const run = await runNode(CLI, ['keys', 'rotate'], { KEYS_DIR: dir });
  t.same([run.code, run.stderr], [0, '']);
  const keys = await readKeyFolder(dir);
  const kid = (alg: string) => keys.find((k) => k.alg === alg)?.kid;
  t.match(
    run.stdout,
    new RegExp(
      `^created  ${kid('ES256')} ES256 published now, signs from \\S+\\ncreated  ${kid('RS256')} RS256 published now, signs from \\S+\\n$`,
    ),
  );
});

t.test('a failed command: one line on stderr, nothing on stdout, exit 1', async (t) => {
  const dir = await tempDir(t);
  const run = await runNode(CLI, ['keys', 'revoke', 'nope', '--dir', dir]);
  t.same([run.code, run.stdout, run.stderr], [1, '', `error: no key with kid nope in ${dir}\n`]);
});

t.test('a usage error: the message and the usage on stderr, exit 2', async (t) => {
  const run = await runNode(CLI, ['keys', 'rotate', '--bogus']);
  t.same(
    [run.code, run.stdout, run.stderr],
    [
      2,
      '',
      "error: Unknown option '--bogus'\nusage: oauth2-token-service keys rotate [--dir DIR] [--alg ES256|EdDSA|RS256|PS256] [--delay SECONDS] [--access-token-ttl SECONDS]\n",
    ],
  );
});

t.test('users add reads the password from the standard input of the process', async (t) => {
  const file = join(await tempDir(t), 'users.json');
  const run = await runNode(CLI, ['users', 'add', '--username', 'alice'], { USERS_FILE: file }, 'alice-password-1\r\nsecond line\n');
  t.same([run.code, run.stdout, run.stderr], [0, `added user alice to ${file}\n`, '']);
  t.same(await (await UserRegistry.load(file)).authenticate('alice', 'alice-password-1'), {
    username: 'alice',
    sub: 'alice',
    claims: {},
    roles: [],
  });
  const closed = await runNode(CLI, ['users', 'add', '--username', 'bob'], { USERS_FILE: file });
  t.same([closed.code, closed.stderr.split('\n')[0]], [2, 'error: no password on standard input (pipe it in; see --help)']);
});

t.test('grants: the process reaches the servers Redis, revokes, and exits once done (its connection closed)', async (t) => {
  const opened = await redisStore(t);
  const env = { REDIS_URL: opened.redis.url, REDIS_KEY_PREFIX: opened.keyPrefix };
  const grant = { grantId: newGrantId(), sub: 'alice', clientId: 'web', expiresAt: Date.now() + 3_600_000 };
  await opened.store.grantIndex.indexGrant(grant);
  const listed = await runNode(CLI, ['grants', 'list', '--sub', 'alice'], env);
  t.same([listed.code, listed.stderr], [0, '']);
  t.match(listed.stdout, new RegExp(`^grant=${grant.grantId} sub=alice client=web expires=\\S+Z\\n$`));
  const revoked = await runNode(CLI, ['grants', 'revoke', '--client', 'web'], env);
  t.equal(revoked.code, 0);
  t.match(revoked.stdout, /\n1 grant revoked\n$/);
  // The process writes its audit line to stderr, whole and alone.
  const [auditLine, ...rest] = revoked.stderr.split('\n');
  t.same(rest, [''], 'one audit line, newline-terminated');
  t.match(JSON.parse(auditLine ?? ''), {
    level: 30,
    audit: true,
    event: 'grant.revoked',
    grantId: grant.grantId,
    reason: 'administrator',
    clientId: 'web',
    sub: 'alice',
    msg: 'grant.revoked',
  });
  t.equal(await opened.store.isGrantRevoked(grant.grantId), true);
  const memory = await runNode(CLI, ['grants', 'list', '--sub', 'alice']);
  t.equal(memory.code, 1, 'no Redis configured: exit 1');
  t.match(memory.stderr, /^error: grants live in the server's store, and no Redis is configured/);
});

import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { inspect } from 'node:util';
import t from 'tap';
import { AdminClient } from '../../src/cli/admin-client.js';
import { freePort } from '../../harness/ports.js';
import { runCommand } from '../helpers/cli.js';
import { FakeAdminApi } from '../helpers/fake-admin-api.js';
import { tempDir } from '../helpers/keys.js';

/**
 * The remote mode's options and environment (--url, --token, --token-file; ADMIN_URL,
 * ADMIN_TOKEN, ADMIN_TOKEN_FILE), what commands without it say about --url, and the one
 * line a failure of the network or an answer that is not the admin API's becomes.
 */

const SECRET_TOKEN = 'never-printed-token-0123456789';

const usage = (run: { code: number | null; stdout: string; stderr: string }) => [run.code, run.stdout, run.stderr.split('\n')[0]];

t.test('the URL: https, or http on this computer only; no credentials, query or fragment', async (t) => {
  const rule = 'must be an https URL (http only on localhost, 127.0.0.1 or [::1]) without credentials, query or fragment';
  for (const url of [
    'http://as.example.com',
    'ftp://localhost',
    'https://user:pw@as.example.com',
    'https://as.example.com/?x=1',
    'https://as.example.com/#f',
    'as.example.com',
  ]) {
    const run = await runCommand(['clients', 'list', '--url', url, '--token', SECRET_TOKEN]);
    t.same(usage(run), [2, '', `error: --url ${rule}`], url);
    const fromEnv = await runCommand(['clients', 'list'], { env: { ADMIN_URL: url, ADMIN_TOKEN: SECRET_TOKEN } });
    t.same([fromEnv.code, fromEnv.stdout, fromEnv.stderr], [1, '', `error: ADMIN_URL ${rule}\n`], `ADMIN_URL=${url}`);
  }
});

t.test('the token: one of --token, --token-file, ADMIN_TOKEN, ADMIN_TOKEN_FILE; never in a message', async (t) => {
  const dir = await tempDir(t);
  const url = 'https://as.example.com';
  const write = async (name: string, content: string) => {
    const file = join(dir, name);
    await writeFile(file, content, { mode: 0o600 });
    return file;
  };
  const twoLines = await write('two-lines', `${SECRET_TOKEN}\nsecond-line\n`);
  const empty = await write('empty', '\n');
  const cases: [string[], Record<string, string>, number, string][] = [
    [
      ['--url', url],
      {},
      2,
      'error: the admin API needs an access token: --token-file FILE, ADMIN_TOKEN_FILE or ADMIN_TOKEN (docs/operator-command.md)',
    ],
    [['--url', url, '--token', 'a', '--token-file', twoLines], {}, 2, 'error: --token or --token-file, not both'],
    [['--url', url, '--token', `${SECRET_TOKEN} x`], {}, 2, 'error: --token must be one access token: printable characters, no spaces'],
    [['--token', SECRET_TOKEN], {}, 2, 'error: --token goes with --url URL (or ADMIN_URL)'],
    [['--token-file', twoLines], {}, 2, 'error: --token-file goes with --url URL (or ADMIN_URL)'],
    [
      ['--url', url, '--token-file', join(dir, 'missing')],
      {},
      1,
      `error: cannot read the token file ${join(dir, 'missing')} (--token-file): ENOENT`,
    ],
    [['--url', url, '--token-file', empty], {}, 1, `error: the token file ${empty} (--token-file) is empty`],
    [
      ['--url', url, '--token-file', twoLines],
      {},
      1,
      `error: the token file ${twoLines} (--token-file) holds more than one access token (spaces or line breaks)`,
    ],
    [
      [],
      { ADMIN_URL: url, ADMIN_TOKEN_FILE: twoLines },
      1,
      `error: the token file ${twoLines} (ADMIN_TOKEN_FILE) holds more than one access token (spaces or line breaks)`,
    ],
    [
      [],
      { ADMIN_URL: url, ADMIN_TOKEN: SECRET_TOKEN, ADMIN_TOKEN_FILE: empty },
      1,
      'error: ADMIN_TOKEN and ADMIN_TOKEN_FILE: set one or the other',
    ],
    [
      [],
      { ADMIN_URL: url, ADMIN_TOKEN: `${SECRET_TOKEN}\n` },
      1,
      'error: ADMIN_TOKEN must be one access token: printable characters, no spaces',
    ],
  ];
  for (const [args, env, code, line] of cases) {
    const run = await runCommand(['grants', 'list', '--sub', 'alice', ...args], { env });
    t.same(usage(run), [code, '', line], [...args, ...Object.keys(env)].join(' '));
    t.notOk(run.stderr.includes(SECRET_TOKEN), 'the token is never printed');
  }
  t.notOk(inspect(new AdminClient(url, SECRET_TOKEN), { showHidden: true, depth: 5 }).includes(SECRET_TOKEN), 'nor shown by inspect');
});

t.test('commands that work on files refuse --url, --token and --token-file (exit 2) and ignore ADMIN_URL', async (t) => {
  const remote =
    'is for clients add|list|remove|rotate-secret, users add|list|remove|disable|enable|set-password|set-roles, grants list|revoke)';
  for (const [args, option] of [
    [['keys', 'list', '--url', 'https://as.example.com'], '--url'],
    [['providers', 'list', '--token-file', 'token'], '--token-file'],
    [['secret', 'hash', 'abc', '--token=x'], '--token'],
    [['registration', 'token', '--url=https://as.example.com'], '--url'],
  ] as const) {
    const run = await runCommand([...args]);
    t.same(
      usage(run),
      [2, '', `error: ${args[0]} ${args[1]} works on files only, not through the admin API (${option} ${remote}`],
      args.join(' '),
    );
  }
  const hash = await runCommand(['secret', 'hash', 'abc'], { env: { ADMIN_URL: 'https://as.example.com' } });
  t.same([hash.code, hash.stderr], [0, '']);
});

t.test('a network failure, a redirect, an answer that is not the admin API: one line, exit 1', async (t) => {
  const env = { ADMIN_TOKEN: SECRET_TOKEN };
  const port = await freePort();
  const refused = await runCommand(['grants', 'list', '--sub', 'alice', '--url', `http://127.0.0.1:${port}`], { env });
  t.same(
    [refused.code, refused.stdout, refused.stderr],
    [1, '', `error: cannot reach the admin API at http://127.0.0.1:${port}: connect ECONNREFUSED 127.0.0.1:${port}\n`],
  );

  // A server that accepts the connection and closes it without a word.
  const silent = createServer((socket) => socket.destroy());
  silent.listen(0, '127.0.0.1');
  await once(silent, 'listening');
  t.teardown(() => silent.close());
  const closedUrl = `http://127.0.0.1:${(silent.address() as { port: number }).port}`;
  const closed = await runCommand(['users', 'list', '--url', closedUrl], { env });
  t.same([closed.code, closed.stdout, closed.stderr], [1, '', `error: cannot reach the admin API at ${closedUrl}: other side closed\n`]);

  const api = await FakeAdminApi.start(t);
  const cases: [Parameters<FakeAdminApi['answer']>[0], string][] = [
    [
      { status: 301, headers: { location: 'https://login.example.com/admin/v1/users' } },
      `the admin API at ${api.url} answered 301 (to https://login.example.com/admin/v1/users): give the server's own URL as --url`,
    ],
    [
      { status: 502, headers: { 'content-type': 'text/html' }, body: '<html>Bad gateway</html>' },
      `the admin API at ${api.url} answered 502 Bad Gateway with text/html, not problem details: is it this server's URL?`,
    ],
    [
      { status: 200, headers: { 'content-type': 'text/html' }, body: '<html></html>' },
      `the admin API at ${api.url} answered 200 with something other than JSON`,
    ],
    [{ status: 200, body: { users: [] } }, `the admin API at ${api.url} answered a list that is not {"items": [...], "next": "…"}`],
    [
      { status: 200, body: { items: [{ username: 'no-sub' }] } },
      'the admin API answered a user that is not one (sub: Invalid input: expected string, received undefined)',
    ],
    [
      {
        status: 500,
        headers: { 'content-type': 'application/problem+json' },
        body: { type: 'about:blank', title: 'Oops\nwith\u0007 control', status: 500 },
      },
      'the admin API answered 500 about:blank: Oops with control',
    ],
  ];
  for (const [answer, line] of cases) {
    api.answer(answer);
    const run = await runCommand(['users', 'list', '--url', api.url], { env });
    t.same([run.code, run.stdout, run.stderr], [1, '', `error: ${line}\n`], line);
    t.equal(api.requests.length, 1, 'one request: a redirect is not followed');
  }
});

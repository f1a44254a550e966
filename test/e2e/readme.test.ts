import { spawnSync } from 'node:child_process';
import { mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { REPOSITORY } from '../../harness/repository.js';
import t, { type Test } from 'tap';
import { tempDir } from '../helpers/keys.js';
import {
  bareNpxLines,
  blockOutcomes,
  blocksScript,
  docsShellBlocks,
  runScript,
  scriptStatus,
  shellBlocks,
  syncStdinLines,
} from '../helpers/readme.js';

/**
 * The docs run as written (issue 10, item 6; issue 21, item 7). Every ```sh block of
 * README.md after the first, then every ```sh block of the pages in DOCS_PAGES, in that
 * order, runs in ONE bash (`set -euo pipefail`, so variables carry from block to block and
 * from page to page, and any failing command fails the test), in a folder that looks like
 * a built checkout, against the dev server on http://localhost:3000.
 *
 * The first ```sh block is not run: it is the newcomer's setup (`npm ci && npm run dev`,
 * `npm test`); the test does its part itself (`npm run test:e2e` built dist/; the server
 * is `node dist/src/dev.js`, what `npm run dev` runs after building) and `npm test` would
 * recurse. The server and the blocks run in a network namespace of their own
 * (`unshare --net`), so the README's fixed ports (3000, the examples' 4000 and 4100) never
 * meet a developer's servers; without namespaces the test needs those ports free.
 */
const ROOT = REPOSITORY;

/**
 * The pages of docs/ whose sh blocks run after README.md's, in this order. A page's blocks
 * may use what the pages before it defined: the code flow's PKCE pair (`CHALLENGE`,
 * `VERIFIER`) and `REFRESH` are used by tokens.md and clients.md. A page of docs/ with sh
 * blocks that is not listed, or a listed page that does not exist, fails the test.
 */
const DOCS_PAGES = [
  'docs/operator-command.md',
  'docs/authorization.md',
  'docs/openid-connect.md',
  'docs/tokens.md',
  'docs/clients.md',
  'docs/resource-servers.md',
  'docs/admin-api.md',
  'docs/device-flow.md',
  'docs/console.md',
];
const PORTS = [3000, 4000, 4100];

const canUnshare = () =>
  spawnSync('unshare', ['--user', '--map-root-user', '--net', 'true'], { stdio: 'ignore' }).status === 0 &&
  spawnSync('ip', ['-V'], { stdio: 'ignore' }).status === 0;

const portFree = (port: number) =>
  new Promise<boolean>((resolve) => {
    const server = createServer()
      .once('error', () => resolve(false))
      .listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });

/** A folder like a checkout after `npm ci`: dist/, node_modules/ and package.json of this one; `.dev/` and `keys/` are its own. */
async function checkoutLike(t: Test): Promise<string> {
  const dir = await tempDir(t);
  for (const name of ['dist', 'node_modules', 'package.json']) await symlink(join(ROOT, name), join(dir, name));
  return dir;
}

/** Starts the dev server as `npm run dev` would after its build, and waits until it is ready and has written .dev/demo.env. */
const START_DEV_SERVER = `
node dist/src/dev.js > dev-server.log 2>&1 &
for attempt in $(seq 1 150); do
  if curl -sf -o /dev/null http://localhost:3000/readyz && [ -s .dev/demo.env ]; then break; fi
  sleep 0.1
done
curl -sf -o /dev/null http://localhost:3000/readyz || { echo "the dev server did not start:"; cat dev-server.log; exit 1; }
`;

/** Names (never values) of the variables the README promised to define, and whether TOKEN is a JWT. */
const REPORT_VARIABLES = `
for name in SECRET PASSWORD TOKEN REFRESH CODE VERIFIER; do
  if [ -n "\${!name:-}" ]; then echo "::readme-defined $name"; fi
done
if [[ "\${TOKEN:-}" =~ ^eyJ[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$ ]]; then echo "::readme-token-is-a-jwt"; fi
`;

/** demo:code-flow's other paths (the script npm run demo:code-flow runs), against the same server: its own PKCE request, a wrong password, a refused request. */
const DEMO_CODE_FLOW_CHECKS = `
status=0; node dist/examples/demo-code-flow.js --resource http://localhost:4000/api > demo.out 2>&1 || status=$?
echo "::demo-own-request $status $(grep -c -E '^(CODE|VERIFIER)=' demo.out)"
status=0; PASSWORD=not-the-password node dist/examples/demo-code-flow.js > demo.out 2>&1 || status=$?
echo "::demo-wrong-password $status $(tr '\\n' ' ' < demo.out)"
status=0; node dist/examples/demo-code-flow.js --scope admin > demo.out 2>&1 || status=$?
echo "::demo-refused $status $(tr '\\n' ' ' < demo.out)"
`;

/** A clean environment, as in a newcomer's shell: no variable of an enclosing npm run or of the test. */
const shellEnv = () => ({
  PATH: `${dirname(process.execPath)}:${process.env.PATH ?? '/usr/bin:/bin'}`,
  HOME: process.env.HOME ?? '/root',
  LANG: 'C.UTF-8',
});

t.test('every sh block of README.md and of docs/, in the declared order, runs as written against npm run dev', async (t) => {
  const docs = await docsShellBlocks(ROOT, DOCS_PAGES);
  t.same(docs.absent, [], 'every page of DOCS_PAGES exists');
  t.same(docs.unlisted, [], 'every page of docs/ with sh blocks is in DOCS_PAGES');
  t.same(docs.otherFences, [], 'shell commands are fenced as sh (run) or text/console (read), never bash or shell');
  const [setup, ...blocks] = docs.blocks;
  t.match(setup, { file: 'README.md', code: /npm ci && npm run dev/ }, "README.md's first sh block is the setup the test performs itself");
  t.ok(blocks.length >= 10, `the docs have runnable blocks (${blocks.length})`);

  const dir = await checkoutLike(t);
  const isolated = canUnshare();
  if (!isolated) {
    const busy = (await Promise.all(PORTS.map(async (port) => ((await portFree(port)) ? [] : [port])))).flat();
    t.same(busy, [], 'without network namespaces the README ports must be free');
    if (busy.length) return;
  }
  const script = blocksScript(
    blocks,
    `${isolated ? 'ip link set lo up\n' : ''}${START_DEV_SERVER}`,
    `${REPORT_VARIABLES}${DEMO_CODE_FLOW_CHECKS}`,
  );
  await writeFile(join(dir, 'readme.sh'), script);
  const command = isolated ? ['unshare', '--user', '--map-root-user', '--net', 'bash', 'readme.sh'] : ['bash', 'readme.sh'];
  const started = Date.now();
  const run = await runScript(command, dir, shellEnv(), 60_000);
  t.comment(`docs blocks: ${blocks.length} in ${Date.now() - started} ms${isolated ? ' (own network namespace)' : ''}`);

  t.notOk(run.timedOut, 'the blocks finish within 60 s');
  const outcomes = blockOutcomes(blocks, run.transcript);
  const broken = outcomes.find((outcome) => !outcome.finished);
  t.equal(
    broken && `${broken.block.file} line ${broken.block.line}`,
    undefined,
    broken?.started
      ? `this block failed:\n${broken.block.code}\nit printed:\n${broken.output}`
      : `the blocks did not start:\n${run.transcript.slice(-3000)}`,
  );
  t.equal(scriptStatus(run.transcript), 0, 'bash exits 0');

  const printed = (pattern: RegExp) => outcomes.some((outcome) => pattern.test(outcome.output));
  t.ok(printed(/"active":true/), 'introspection says an issued token is active');
  t.ok(printed(/\{"active":false\}/), 'introspection says the revoked token is not');
  t.ok(printed(/"refresh_token":"[^"]+"/), 'the code flow issued a refresh token');
  t.ok(printed(/"error":"invalid_target"/), 'an unregistered resource is invalid_target');
  t.ok(printed(/"client_id":"dyn_/), 'dynamic registration answered with a client id');
  t.ok(printed(/\{"sub":"demo-client","scope":"read"\}/), 'the example resource server accepted the token');
  t.ok(printed(/"aud":"http:\/\/localhost:4100\/mcp"/), 'the example MCP server ran whoami with the resource token');
  t.ok(printed(/"error":"authorization_pending"/), 'a device polled before its user decided');
  t.ok(printed(/"structuredContent":\{"sub":"demo","client_id":"dyn_/), 'the MCP server ran whoami with the device flow token');
  const defined = [...run.transcript.matchAll(/::readme-defined (\w+)/g)].map((m) => m[1]);
  t.same(defined, ['SECRET', 'PASSWORD', 'TOKEN', 'REFRESH', 'CODE', 'VERIFIER'], 'the blocks define the variables they use');
  t.match(run.transcript, /::readme-token-is-a-jwt/, 'TOKEN holds a JWT access token');

  t.match(run.transcript, /::demo-own-request 0 2\n/, 'demo:code-flow without a URL prints CODE and VERIFIER');
  t.match(
    run.transcript,
    /::demo-wrong-password 1 demo:code-flow: sign-in as demo refused: .+\n/,
    'demo:code-flow with a wrong password fails (exit 1) and says why',
  );
  t.match(
    run.transcript,
    /::demo-refused 1 demo:code-flow: invalid_scope: .+\n/,
    'demo:code-flow fails (exit 1) with the error the client is sent',
  );

  const credentials = await readFile(join(dir, '.dev', 'demo.env'), 'utf8');
  t.match(credentials, /^SECRET=[A-Za-z0-9_-]{43}$/m, '.dev/demo.env holds the secret npm run dev printed');
  const devLog = await readFile(join(dir, 'dev-server.log'), 'utf8');
  const secret = /^SECRET=(.+)$/m.exec(credentials)?.[1] as string;
  t.ok(devLog.includes(`client_secret: ${secret}`), 'the same secret npm run dev printed');
});

t.test('no documented command fetches a package it did not install: npx oauth2-token-service only with --no-install', async (t) => {
  t.same(bareNpxLines('```text\nnpx oauth2-token-service keys list\nnpx --no-install oauth2-token-service keys list\n```\n'), [2], 'found');
  t.same(bareNpxLines('```cron\n0 3 * * *  npx --yes oauth2-token-service keys prune\n```\n'), [2], 'other flags do not help');
  const pages = [
    'README.md',
    'CONTRIBUTING.md',
    'ARCHITECTURE.md',
    'packages/verifier/README.md',
    ...(await readdir(join(ROOT, 'docs'))).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`),
  ];
  const bare: string[] = [];
  for (const page of pages) for (const line of bareNpxLines(await readFile(join(ROOT, page), 'utf8'))) bare.push(`${page} line ${line}`);
  t.same(bare, [], 'every npx of the command says --no-install');
});

t.test('no documented command reads a pipe synchronously: readFileSync(0) throws EAGAIN on a non-blocking pipe', async (t) => {
  t.same(
    syncStdinLines(
      '```sh\ncurl -s x | node -e \'require("fs").readFileSync(0, "utf8")\'\nnode -e \'readFileSync("/dev/stdin")\'\ncurl -s x | json_field a\n```\n',
    ),
    [2, 3],
    'found',
  );
  const pages = [
    'README.md',
    'CONTRIBUTING.md',
    ...(await readdir(join(ROOT, 'docs'))).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`),
  ];
  const found: string[] = [];
  for (const page of pages) for (const line of syncStdinLines(await readFile(join(ROOT, page), 'utf8'))) found.push(`${page} line ${line}`);
  t.same(found, [], 'every documented pipe into node is read as a stream');
});

t.test('a block that fails fails the run, naming its line; later blocks do not run', async (t) => {
  const dir = await tempDir(t);
  await mkdir(join(dir, 'sub'));
  const markdown = [
    '```sh',
    'npm ci && npm run dev',
    '```',
    '```sh',
    'GREETING=hello',
    '```',
    '1. a list item',
    '   ```sh',
    '   echo "$GREETING from an indented block"',
    '   ```',
    '```text',
    'not run',
    '```',
    '```sh',
    'curl -s --max-time 1 http://127.0.0.1:9/ | grep -q anything',
    '```',
    '```sh',
    'echo never',
    '```',
  ].join('\n');
  const [, ...blocks] = shellBlocks(markdown);
  t.same(
    blocks.map((block) => block.line),
    [4, 8, 14, 17],
  );
  t.equal(blocks[1]?.code, 'echo "$GREETING from an indented block"');
  await writeFile(join(dir, 'readme.sh'), blocksScript(blocks));
  const run = await runScript(['bash', 'readme.sh'], dir, shellEnv(), 10_000);
  const outcomes = blockOutcomes(blocks, run.transcript);
  t.same(
    outcomes.map((o) => [o.started, o.finished]),
    [
      [true, true],
      [true, true],
      [true, false],
      [false, false],
    ],
  );
  t.equal(outcomes[1]?.output.trim(), 'hello from an indented block', 'variables carry over from block to block');
  t.not(scriptStatus(run.transcript), 0, 'a failed pipeline stops the script (pipefail)');
  t.not(run.code, 0);
});

t.test('the pages run in the declared order; an unlisted page with sh blocks or a listed page that is missing is reported', async (t) => {
  const dir = await tempDir(t);
  await mkdir(join(dir, 'docs'));
  const sh = (code: string) => ['```sh', code, '```'].join('\n');
  await writeFile(join(dir, 'README.md'), [sh('npm ci && npm run dev'), sh('FIRST=1')].join('\n'));
  await writeFile(join(dir, 'docs', 'a.md'), ['# A', sh('echo "$SECOND"')].join('\n'));
  await writeFile(join(dir, 'docs', 'b.md'), ['# B', sh('SECOND=2')].join('\n'));
  await writeFile(join(dir, 'docs', 'c.md'), ['# C', '```bash', 'not run', '```', '```text', 'not run', '```'].join('\n'));
  await writeFile(join(dir, 'docs', 'd.md'), ['# D', sh('echo unlisted')].join('\n'));

  const docs = await docsShellBlocks(dir, ['docs/b.md', 'docs/a.md', 'docs/missing.md']);
  t.same(
    docs.blocks.map((block) => [block.file, block.line, block.code]),
    [
      ['README.md', 1, 'npm ci && npm run dev'],
      ['README.md', 4, 'FIRST=1'],
      ['docs/b.md', 2, 'SECOND=2'],
      ['docs/a.md', 2, 'echo "$SECOND"'],
    ],
    'README.md first, then the pages in the declared order, not the folder order',
  );
  t.same(docs.absent, ['docs/missing.md'], 'a listed page that does not exist');
  t.same(docs.unlisted, ['docs/d.md'], 'a page with sh blocks left out of the order (c.md has none)');
  t.same(docs.otherFences, ['docs/c.md line 2: bash'], 'a bash fence in any page, listed or not');
});

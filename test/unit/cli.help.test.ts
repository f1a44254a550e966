import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join, sep } from 'node:path';
import t from 'tap';
import { GROUPS, servesAlone, TOOL_HELP } from '../../src/cli/dispatch.js';
import { packageInfo } from '../../src/cli/package-info.js';
import { REPOSITORY } from '../../harness/repository.js';
import { runCommand } from '../helpers/cli.js';
import { tempDir } from '../helpers/keys.js';

/** `oauth2-token-service --help`, each group's and each command's; unknown and missing commands. */

const EXIT_CODES = `exit codes:
  0  success
  1  the command failed: a bad or missing file, a refused change, a lock held by another run,
     Redis unreachable or not configured (grants), the admin API refused or did not answer (--url)
  2  usage error: unknown command or option, missing or extra argument, bad option value
`;

t.test('the tool: --help lists every command and the exit codes', async (t) => {
  for (const args of [['--help'], ['-h'], ['help']]) {
    const run = await runCommand(args);
    t.same([run.code, run.stdout, run.stderr], [0, `${TOOL_HELP}\n`, ''], args.join(' '));
  }
  const help = (await runCommand(['--help'])).stdout;
  t.ok(
    help.startsWith(
      'usage: oauth2-token-service serve\n       oauth2-token-service <group> <command> [options]\n       oauth2-token-service --version\n',
    ),
  );
  t.ok(
    help.includes(
      '\n"oauth2-token-service serve --help" tells where the docs are; "oauth2-token-service --version" (or -V) prints the version.\n',
    ),
  );
  t.ok(help.endsWith(EXIT_CODES));
  for (const line of [
    'keys rotate',
    'keys revoke <kid>',
    'keys prune',
    'keys list',
    'clients add',
    'clients list',
    'clients remove <client_id>',
    'clients rotate-secret <client_id>',
    'users add',
    'users list',
    'users remove <username>',
    'users disable <username>',
    'users enable <username>',
    'users set-password <username>',
    'users set-roles <username>',
    'grants list',
    'grants revoke <grant-id>',
    'secret hash <secret>',
    'password hash <password>',
    'registration token',
  ]) {
    t.match(help, new RegExp(`\\n  ${line} +\\S`), line);
  }
});

t.test('each group and each command has --help, which does nothing else', async (t) => {
  const dir = await tempDir(t);
  const env = { KEYS_DIR: join(dir, 'keys'), CLIENTS_FILE: join(dir, 'clients.json'), USERS_FILE: join(dir, 'users.json') };
  for (const group of GROUPS) {
    const groupHelp = await runCommand([group.name, '--help'], { env });
    t.equal(groupHelp.code, 0);
    t.ok(groupHelp.stdout.startsWith(`usage: oauth2-token-service ${group.name} <command> [options]\n\n${group.summary}:\n`), group.name);
    for (const command of group.commands) {
      const name = `${group.name} ${command.name}`;
      const run = await runCommand([group.name, command.name, '--help'], { env, input: 'a-password-on-stdin\n' });
      t.equal(run.code, 0, name);
      t.equal(run.stderr, '');
      t.ok(run.stdout.startsWith(`usage: oauth2-token-service ${name} ${command.synopsis}`.trimEnd()), `${name}: usage line`);
      t.ok(run.stdout.includes(`\n\n${command.description}\n\n`), `${name}: description`);
      t.ok(run.stdout.endsWith(EXIT_CODES), `${name}: exit codes`);
      t.match(groupHelp.stdout, command.summary);
    }
  }
  const short = await runCommand(['clients', 'remove', 'x', '-h'], { env });
  t.same(
    [short.code, short.stdout.split('\n')[0]],
    [0, 'usage: oauth2-token-service clients remove <client_id> [--file CLIENTS_FILE | --url URL [--token-file FILE]]'],
  );
  t.same(await readdir(dir), [], 'no file or folder was created');
});

t.test('a wrong or missing command is a usage error (exit 2), with the usage to follow', async (t) => {
  const cases: [string[], string][] = [
    [[], 'error: missing command\nusage: oauth2-token-service <group> <command> [options] (see "oauth2-token-service --help")\n'],
    [
      ['key'],
      `error: unknown command group 'key'\nusage: oauth2-token-service <group> <command> [options] (see "oauth2-token-service --help")\n`,
    ],
    [
      ['keys'],
      'error: missing keys command\nusage: oauth2-token-service keys <rotate|revoke|prune|list> [options] (see "oauth2-token-service keys --help")\n',
    ],
    [
      ['clients', 'delete', 'x'],
      `error: unknown clients command 'delete'\nusage: oauth2-token-service clients <add|list|remove|rotate-secret> [options] (see "oauth2-token-service clients --help")\n`,
    ],
  ];
  for (const [args, stderr] of cases) {
    const run = await runCommand(args);
    t.same([run.code, run.stdout, run.stderr], [2, '', stderr], args.join(' ') || '(nothing)');
  }
});

t.test('serve: the server, configured by its environment; help, and no arguments', async (t) => {
  t.equal(servesAlone(['serve']), true, 'serve alone starts the server');
  t.equal(servesAlone(['serve', '--port', '3000']), false);
  const help = await runCommand(['serve', '--help']);
  t.same([help.code, help.stderr], [0, '']);
  t.ok(help.stdout.startsWith('usage: oauth2-token-service serve\n\nStarts the server, configured by its environment variables'));
  t.ok(
    help.stdout.includes('In production (NODE_ENV=production, or run from an installed package) it refuses to start\nwithout ISSUER,'),
    'it names the production refusals',
  );
  t.ok(help.stdout.includes('Supervise the binary itself (node_modules/.bin/oauth2-token-service serve), not npx or npm'));
  // The package's own folder, found from the running module: here the repository.
  t.ok(
    help.stdout.endsWith(
      [
        "The docs of this version come with it, in the package's folder:",
        `  README     ${REPOSITORY}${sep}README.md (first requests, production quick start)`,
        `  pages      ${REPOSITORY}${sep}docs${sep} (one page per topic: configuration.md, operations.md, ...)`,
        `  changes    ${REPOSITORY}${sep}CHANGELOG.md (and the versioning policy)\n`,
      ].join('\n'),
    ),
    help.stdout,
  );
  for (const path of ['README.md', 'docs/configuration.md', 'docs/operations.md', 'CHANGELOG.md'])
    t.ok((await stat(join(REPOSITORY, path))).isFile(), `${path} is there`);
  const extra = await runCommand(['serve', '--port', '3000']);
  t.same(
    [extra.code, extra.stdout, extra.stderr],
    [2, '', 'error: serve takes no arguments: the server is configured by its environment\nusage: oauth2-token-service serve\n'],
  );
});

t.test('--version and -V print the version of package.json, alone on a line, for scripts', async (t) => {
  const { version } = JSON.parse(await readFile(join(REPOSITORY, 'package.json'), 'utf8')) as { version: string };
  t.match(version, /^\d+\.\d+\.\d+$/);
  for (const flag of ['--version', '-V']) {
    const run = await runCommand([flag]);
    t.same([run.code, run.stdout, run.stderr], [0, `${version}\n`, ''], flag);
  }
  const extra = await runCommand(['--version', 'keys']);
  t.same([extra.code, extra.stdout, extra.stderr], [2, '', 'error: --version takes no arguments\nusage: oauth2-token-service --version\n']);
});

t.test('packageInfo: the nearest package.json above the module is the package, wherever it is installed', async (t) => {
  const { version } = JSON.parse(await readFile(join(REPOSITORY, 'package.json'), 'utf8')) as { version: string };
  t.same(packageInfo(), { root: REPOSITORY, version }, 'from the tests: the repository');
  const dir = await tempDir(t);
  const installed = join(dir, 'node_modules', 'oauth2-token-service');
  await mkdir(join(installed, 'dist', 'src', 'cli'), { recursive: true });
  await writeFile(join(installed, 'package.json'), JSON.stringify({ name: 'oauth2-token-service', version: '9.8.7' }));
  t.same(packageInfo(join(installed, 'dist', 'src', 'cli')), { root: installed, version: '9.8.7' }, 'installed: its own folder');
  await writeFile(join(installed, 'package.json'), JSON.stringify({ name: 'oauth2-token-service' }));
  t.throws(() => packageInfo(join(installed, 'dist', 'src', 'cli')), {
    message: `${join(installed, 'package.json')} has no version`,
  });
});

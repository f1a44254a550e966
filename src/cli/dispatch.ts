import { join, sep } from 'node:path';
import { clientsGroup } from './clients.js';
import { type CliIo, type Command, type CommandGroup, EXIT, TOOL, UsageError, usageLine } from './command.js';
import { grantsGroup } from './grants.js';
import { keysGroup } from './keys.js';
import { packageInfo } from './package-info.js';
import { passwordGroup } from './password.js';
import { providersGroup } from './providers.js';
import { registrationGroup } from './registration.js';
import { secretGroup } from './secret.js';
import { usersGroup } from './users.js';

/** `oauth2-token-service <group> <command> [options]`: finds the command, runs it, turns what it throws into an exit code. */

export const GROUPS: readonly CommandGroup[] = [
  keysGroup,
  clientsGroup,
  usersGroup,
  providersGroup,
  grantsGroup,
  secretGroup,
  passwordGroup,
  registrationGroup,
];

const EXIT_CODES = `exit codes:
  0  success
  1  the command failed: a bad or missing file, a refused change, a lock held by another run,
     Redis unreachable or not configured (grants), the admin API refused or did not answer (--url)
  2  usage error: unknown command or option, missing or extra argument, bad option value`;

/** `keys revoke <kid>`: the command and its positional arguments (of its first form, before any ` | `). */
const calling = (group: CommandGroup, command: Command) =>
  [group.name, command.name, ...(command.synopsis.split(' | ')[0] as string).split(' ').filter((word) => word.startsWith('<'))].join(' ');

function commandList(groups: readonly CommandGroup[]): string {
  const rows = groups.flatMap((group) => group.commands.map((command) => [calling(group, command), command.summary] as const));
  const width = Math.max(...rows.map(([name]) => name.length));
  return rows.map(([name, summary]) => `  ${name.padEnd(width)}  ${summary}`).join('\n');
}

/** Where the docs are: read at run time, so an installed package names its own folder. */
function serveHelp(): string {
  const { root } = packageInfo();
  return `usage: ${TOOL} serve

Starts the server, configured by its environment variables (PORT, ISSUER, KEYS_DIR,
REDIS_URL, ...: docs/configuration.md); it runs until SIGTERM or SIGINT, reloads on SIGHUP.
It takes no arguments. It listens on HOST (default 0.0.0.0) and PORT (default 3000).

In production (NODE_ENV=production, or run from an installed package) it refuses to start
without ISSUER, with an http:// ISSUER on a host other than localhost, and without
SESSION_SECRET while browsers sign in: one line per problem, naming the variable and the fix.
Supervise the binary itself (node_modules/.bin/${TOOL} serve), not npx or npm, so that
SIGHUP and SIGTERM reach it (docs/operations.md).

The docs of this version come with it, in the package's folder:
  README     ${join(root, 'README.md')} (first requests, production quick start)
  pages      ${join(root, 'docs')}${sep} (one page per topic: configuration.md, operations.md, ...)
  changes    ${join(root, 'CHANGELOG.md')} (and the versioning policy)`;
}

/** `serve` with nothing after it: the process becomes the server (src/cli/index.ts). */
export function servesAlone(argv: readonly string[]): boolean {
  return argv.length === 1 && argv[0] === 'serve';
}

export const TOOL_HELP = `usage: ${TOOL} serve
       ${TOOL} <group> <command> [options]
       ${TOOL} --version

"${TOOL} serve" starts the server, configured by its environment.

Operator commands of the OAuth 2.0 token service. They read the server's environment
variables (KEYS_DIR, CLIENTS_FILE, USERS_FILE, IDENTITY_PROVIDERS_FILE, JWKS_CACHE_TTL, ACCESS_TOKEN_TTL;
REDIS_* for grants) for their defaults; options override them. Servers pick up changed keys, clients,
users and providers on SIGHUP.

With --url URL (or ADMIN_URL) the clients, users and grants commands work on a running fleet
through its admin API instead, with an access token for it from --token-file FILE,
ADMIN_TOKEN_FILE or ADMIN_TOKEN (docs/operator-command.md); the other commands work on files only.

${commandList(GROUPS)}

"${TOOL} <group> --help" and "${TOOL} <group> <command> --help" tell more;
"${TOOL} serve --help" tells where the docs are; "${TOOL} --version" (or -V) prints the version.

${EXIT_CODES}`;

const groupHelp = (group: CommandGroup) => `usage: ${TOOL} ${group.name} <command> [options]

${group.summary}:
${commandList([group])}

"${TOOL} ${group.name} <command> --help" tells more.`;

const commandHelp = (group: CommandGroup, command: Command) => `${usageLine(group, command)}

${command.description}

${EXIT_CODES}`;

/** `--help` or `-h` anywhere before a `--` asks for help instead of running. */
function asksForHelp(args: readonly string[]): boolean {
  const end = args.indexOf('--');
  return (end < 0 ? args : args.slice(0, end)).some((arg) => arg === '--help' || arg === '-h');
}

/** `--url`, `--token`, `--token-file` (or `--url=…`) before any `--`: the remote mode, which only some commands have. */
function asksForAdminApi(args: readonly string[]): string | undefined {
  const end = args.indexOf('--');
  return (end < 0 ? args : args.slice(0, end)).map((arg) => arg.split('=')[0] as string).find((arg) => REMOTE_FLAGS.has(arg));
}

const REMOTE_FLAGS = new Set(['--url', '--token', '--token-file']);

/** `clients add|list|…, users …, grants list|revoke`: the commands that have a remote mode. */
const remoteCommands = (groups: readonly CommandGroup[]) =>
  groups
    .map((group) => [group.name, group.commands.filter((command) => command.remote).map((command) => command.name)] as const)
    .filter(([, names]) => names.length > 0)
    .map(([name, names]) => `${name} ${names.join('|')}`)
    .join(', ');

/** Prints a usage error and the usage it breaks; returns exit code 2. */
function usageError(io: CliIo, message: string, usage: string): number {
  io.stderr.write(`error: ${message}\n${usage}\n`);
  return EXIT.usage;
}

/** Writes what `text` makes, or the reason it could not (an unreadable package.json: exit 1). */
function printed(io: CliIo, text: () => string): number {
  try {
    io.stdout.write(`${text()}\n`);
    return EXIT.ok;
  } catch (err) {
    io.stderr.write(`error: ${(err as Error).message}\n`);
    return EXIT.failure;
  }
}

/** Runs one command line; never throws: every outcome is an exit code and lines on stdout or stderr. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const [groupName, commandName, ...args] = argv;
  const toolUsage = `usage: ${TOOL} <group> <command> [options] (see "${TOOL} --help")`;
  if (groupName === undefined) return usageError(io, 'missing command', toolUsage);
  if (groupName === '--help' || groupName === '-h' || groupName === 'help') {
    io.stdout.write(`${TOOL_HELP}\n`);
    return EXIT.ok;
  }
  if (groupName === '--version' || groupName === '-V') {
    if (commandName !== undefined) return usageError(io, `${groupName} takes no arguments`, `usage: ${TOOL} --version`);
    return printed(io, () => packageInfo().version);
  }
  if (groupName === 'serve') {
    if (commandName === '--help' || commandName === '-h') return printed(io, serveHelp);
    return usageError(io, 'serve takes no arguments: the server is configured by its environment', `usage: ${TOOL} serve`);
  }
  const group = GROUPS.find((g) => g.name === groupName);
  if (!group) return usageError(io, `unknown command group '${groupName}'`, toolUsage);
  const groupUsage = `usage: ${TOOL} ${group.name} <${group.commands.map((c) => c.name).join('|')}> [options] (see "${TOOL} ${group.name} --help")`;
  if (commandName === '--help' || commandName === '-h') {
    io.stdout.write(`${groupHelp(group)}\n`);
    return EXIT.ok;
  }
  if (commandName === undefined) return usageError(io, `missing ${group.name} command`, groupUsage);
  const command = group.commands.find((c) => c.name === commandName);
  if (!command) return usageError(io, `unknown ${group.name} command '${commandName}'`, groupUsage);
  if (asksForHelp(args)) {
    io.stdout.write(`${commandHelp(group, command)}\n`);
    return EXIT.ok;
  }
  const remote = command.remote ? undefined : asksForAdminApi(args);
  if (remote !== undefined)
    return usageError(
      io,
      `${group.name} ${command.name} works on files only, not through the admin API (${remote} is for ${remoteCommands(GROUPS)})`,
      usageLine(group, command),
    );
  try {
    await command.run(args, io);
    return EXIT.ok;
  } catch (err) {
    if (err instanceof UsageError) return usageError(io, err.message, usageLine(group, command));
    io.stderr.write(`error: ${(err as Error).message}\n`);
    return EXIT.failure;
  }
}

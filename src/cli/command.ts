import { StringDecoder } from 'node:string_decoder';
import { type ParseArgsConfig, parseArgs } from 'node:util';
import type { Clock } from '../clock.js';

/**
 * What every command of `oauth2-token-service` shares: its streams (injected, so tests
 * run commands in-process), the exit codes, and strict parsing of its command line.
 */

export const TOOL = 'oauth2-token-service';

/** The exit codes, the same for every command (documented in `--help` and the README). */
export const EXIT = {
  ok: 0,
  /** The command ran and failed: a bad file, a refused change, a held lock. */
  failure: 1,
  /** The command line is wrong: unknown command or option, missing or extra argument, bad option value. */
  usage: 2,
} as const;

export interface CliIo {
  readonly stdout: { write(text: string): unknown };
  readonly stderr: { write(text: string): unknown };
  readonly stdin: AsyncIterable<string | Uint8Array>;
  /** Where KEYS_DIR, CLIENTS_FILE, … come from; undefined: the process environment (read in src/config.ts). */
  readonly env?: NodeJS.ProcessEnv | undefined;
  /** The time key commands work at; the system clock by default. */
  readonly clock?: Clock | undefined;
}

/** A problem with the command line itself: exit code 2, with the command's usage. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export interface Command {
  /** `rotate`, `rotate-secret`, … */
  readonly name: string;
  /** Arguments and options after `<group> <name>`, for the usage line. */
  readonly synopsis: string;
  /** One line for the lists of `--help`. */
  readonly summary: string;
  /** What `<group> <name> --help` prints below the usage line. */
  readonly description: string;
  /** Works on a running fleet through the admin API too (`--url`, src/cli/remote.ts); the others refuse `--url`. */
  readonly remote?: true;
  run(args: readonly string[], io: CliIo): Promise<void>;
}

export interface CommandGroup {
  readonly name: string;
  readonly summary: string;
  readonly commands: readonly Command[];
}

export const usageLine = (group: CommandGroup, command: Command) =>
  `usage: ${TOOL} ${group.name} ${command.name} ${command.synopsis}`.trimEnd();

type Options = NonNullable<ParseArgsConfig['options']>;

/**
 * Parses a command's arguments strictly: unknown options, a missing option value and
 * the wrong number of positional arguments (`positionals` names them, `optional` how many
 * of the last ones may be left out) are usage errors.
 */
export function parseCommandLine<const O extends Options>(
  args: readonly string[],
  options: O,
  positionals: readonly string[] = [],
  optional = 0,
): ReturnType<typeof parseArgs<{ args: string[]; options: O; strict: true; allowPositionals: true }>> {
  let parsed;
  try {
    parsed = parseArgs({ args: [...args], options, strict: true, allowPositionals: true });
  } catch (err) {
    // Node's advice after an unknown option ("place it at the end of the command after '--'") misleads here.
    const { code, message } = err as NodeJS.ErrnoException;
    throw new UsageError(code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? (message.split('. ')[0] as string) : message);
  }
  const empty = parsed.positionals.findIndex((value) => value === '');
  if (empty >= 0 && empty < positionals.length) throw new UsageError(`<${positionals[empty]}> must not be empty`);
  const missing = positionals[parsed.positionals.length];
  if (missing !== undefined && parsed.positionals.length < positionals.length - optional) throw new UsageError(`missing <${missing}>`);
  const extra = parsed.positionals[positionals.length];
  if (extra !== undefined) throw new UsageError(`unexpected argument '${extra}'`);
  return parsed;
}

export function wholeSeconds(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value)) throw new UsageError(`${name} must be a whole number of seconds`);
  return Number(value);
}

/** One of `allowed`, or a usage error naming them. */
export function oneOf<T extends string>(name: string, value: string | undefined, allowed: readonly T[]): T | undefined {
  if (value === undefined || (allowed as readonly string[]).includes(value)) return value as T | undefined;
  throw new UsageError(`${name} must be one of ${allowed.join(', ')}`);
}

/** The first line of standard input, without its line ending (no final newline needed). */
export async function readFirstLine(stdin: AsyncIterable<string | Uint8Array>): Promise<string> {
  const decoder = new StringDecoder('utf8');
  let input = '';
  for await (const chunk of stdin) {
    input += typeof chunk === 'string' ? chunk : decoder.write(Buffer.from(chunk));
    if (input.includes('\n')) break;
  }
  input += decoder.end();
  return input.split(/\r?\n/, 1)[0] ?? '';
}

/** One field of a `list` line: `name=value`, the value JSON-quoted when empty or when it holds spaces or quotes. */
export function listField(name: string | undefined, value: string): string {
  const shown = value === '' || /[\s"]/.test(value) ? JSON.stringify(value) : value;
  return name === undefined ? shown : `${name}=${shown}`;
}

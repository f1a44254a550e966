import { readFile } from 'node:fs/promises';
import { ADMIN_URL_RULE, isAdminApiUrl, isBearerToken, loadAdminApiDefaults } from '../config/operator.js';
import { AdminClient } from './admin-client.js';
import { type CliIo, UsageError } from './command.js';

/**
 * The remote mode of `clients`, `users` and `grants`: with `--url` (or ADMIN_URL) a command
 * works on a running fleet through its admin API instead of on a file or Redis. The token
 * comes from `--token-file`, `--token`, ADMIN_TOKEN or ADMIN_TOKEN_FILE (the options first);
 * `--token` is there for scripts, but other users of the computer can read it in the process list.
 */

export const REMOTE_OPTIONS = {
  url: { type: 'string' },
  token: { type: 'string' },
  'token-file': { type: 'string' },
} as const;

export const REMOTE_SYNOPSIS = '--url URL [--token-file FILE]';

/** The paragraph the help of every command with a remote mode ends with. */
export const REMOTE_HELP = `With --url URL (or ADMIN_URL) it works on a running fleet through the admin API of the
server at URL (its ISSUER: https, or http on localhost) instead, with an access token for
the admin API (scope admin:read to list, admin:write to change) read from --token-file
FILE, ADMIN_TOKEN_FILE or ADMIN_TOKEN (the environment or a file: --token TOKEN works too,
but the process list shows it to every user of this computer).`;

/** The file-only options a command was given, named as typed: refused in remote mode. */
export type OptionsGiven = Readonly<Record<string, unknown>>;

export interface RemoteValues {
  readonly url?: string | undefined;
  readonly token?: string | undefined;
  readonly 'token-file'?: string | undefined;
}

async function tokenFromFile(file: string, source: string): Promise<string> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    const why = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    throw new Error(`cannot read the token file ${file} (${source}): ${why}`, { cause: err });
  }
  const token = text.trim();
  if (token === '') throw new Error(`the token file ${file} (${source}) is empty`);
  // Never the file's content: it is a credential.
  if (!isBearerToken(token)) throw new Error(`the token file ${file} (${source}) holds more than one access token (spaces or line breaks)`);
  return token;
}

/** The server without trailing slashes or a trailing `/admin/v1`: the API's paths go after it. */
const serverOf = (url: string) => url.replace(/\/+$/, '').replace(/\/admin\/v1$/, '');

/**
 * The admin API the command goes to, or undefined when it works on its file (no `--url`, no
 * ADMIN_URL). `fileOnly`: options that make sense for the file only (a usage error in remote
 * mode); `remoteOnly`: options only the admin API understands (a usage error without it).
 */
export async function adminApiOf(
  values: RemoteValues,
  io: CliIo,
  given: { readonly fileOnly?: OptionsGiven; readonly remoteOnly?: OptionsGiven } = {},
): Promise<AdminClient | undefined> {
  const defaults = loadAdminApiDefaults(io.env);
  const url = values.url ?? defaults.url;
  const named = (options: OptionsGiven | undefined) =>
    Object.entries(options ?? {})
      .filter(([, value]) => value !== undefined)
      .map(([name]) => name);
  if (url === undefined) {
    if (values.token !== undefined || values['token-file'] !== undefined)
      throw new UsageError(`${values.token !== undefined ? '--token' : '--token-file'} goes with --url URL (or ADMIN_URL)`);
    const remoteOnly = named(given.remoteOnly);
    if (remoteOnly.length > 0) throw new UsageError(`${remoteOnly.join(', ')}: only with --url URL (or ADMIN_URL), through the admin API`);
    return undefined;
  }
  if (values.url !== undefined && !isAdminApiUrl(values.url)) throw new UsageError(`--url ${ADMIN_URL_RULE}`);
  const fileOnly = named(given.fileOnly);
  if (fileOnly.length > 0)
    throw new UsageError(
      `${fileOnly.join(', ')}: for the file only, not through the admin API (${values.url !== undefined ? '--url' : 'ADMIN_URL is set'})`,
    );
  if (values.token !== undefined && values['token-file'] !== undefined) throw new UsageError('--token or --token-file, not both');
  if (values.token !== undefined && !isBearerToken(values.token))
    throw new UsageError('--token must be one access token: printable characters, no spaces');
  const token =
    values.token ??
    (values['token-file'] !== undefined ? await tokenFromFile(values['token-file'], '--token-file') : undefined) ??
    defaults.token ??
    (defaults.tokenFile !== undefined ? await tokenFromFile(defaults.tokenFile, 'ADMIN_TOKEN_FILE') : undefined);
  if (token === undefined)
    throw new UsageError(
      'the admin API needs an access token: --token-file FILE, ADMIN_TOKEN_FILE or ADMIN_TOKEN (docs/operator-command.md)',
    );
  return new AdminClient(serverOf(url), token);
}

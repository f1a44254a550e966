import { randomBytes } from 'node:crypto';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { withLockFile } from './file-lock.js';

/**
 * Registry files of the form `{"<member>": [...]}` (CLIENTS_FILE, USERS_FILE): read by
 * the server, read and written by the operator commands.
 */

export interface ReadOptions {
  /** A file that does not exist yet reads as an empty registry (the commands that add to one). */
  readonly missingMeansEmpty?: boolean;
}

/**
 * V8 quotes the text around a syntax error (`Unexpected token 's', ..."et_hash": sha256:pla"...
 * is not valid JSON`), which in these files may be part of a hash: the message drops it.
 */
function withoutQuotedInput(err: SyntaxError): string {
  return err.message.replace(/, (?:\.\.\.)?".*$/s, '');
}

/** What an operator reads for a file that cannot be read. */
const FILE_PROBLEMS: Record<string, string> = {
  ENOENT: 'no such file',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EISDIR: 'a directory, not a file',
  ENOTDIR: 'a folder on the path is a file',
};

function fileProblem(code: string | undefined, err: unknown): string {
  return (code && FILE_PROBLEMS[code]) ?? code ?? String(err);
}

/** A JSON file's value (undefined when it does not exist and `missingMeansEmpty`); every failure becomes one message that names the file. */
export async function readJsonFile(file: string, fail: (message: string) => Error, options: ReadOptions = {}): Promise<unknown> {
  try {
    return JSON.parse(await readFile(file, 'utf8'));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && options.missingMeansEmpty) return undefined;
    const reason = err instanceof SyntaxError ? `not valid JSON (${withoutQuotedInput(err)})` : fileProblem(code, err);
    throw fail(`${file}: ${reason}`);
  }
}

/** The entries of a registry file; every failure becomes one message that names the file. */
export async function readRegistryEntries(
  file: string,
  member: string,
  fail: (message: string) => Error,
  options: ReadOptions = {},
): Promise<unknown[]> {
  const json = await readJsonFile(file, fail, options);
  if (json === undefined) return [];
  const entries = (json as Record<string, unknown> | null)?.[member];
  if (typeof json !== 'object' || json === null || Array.isArray(json) || Object.keys(json).length !== 1 || !Array.isArray(entries)) {
    throw fail(`${file}: expected {"${member}": [...]}`);
  }
  return entries;
}

/** Replaces the file through a temporary file and rename (mode 0600), so a reader never sees half of it. */
export async function writeRegistryEntries(file: string, member: string, entries: readonly unknown[]): Promise<void> {
  const temporary = join(dirname(file), `.${randomBytes(6).toString('hex')}.tmp`);
  await writeFile(temporary, `${JSON.stringify({ [member]: entries }, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  await rename(temporary, file);
}

/** The lock file of a registry file: `.<name>.lock` beside it. */
function lockOf(file: string): string {
  return join(dirname(file), `.${basename(file)}.lock`);
}

/**
 * Runs `work` holding the registry file's lock, so that operator commands run at once
 * cannot lose each other's change (the server only reads, and never sees half a file).
 */
export async function withRegistryLock<T>(file: string, work: () => Promise<T>): Promise<T> {
  const lock = lockOf(file);
  return withLockFile(lock, `another command is changing ${file} (it holds ${lock}); try again later`, work);
}

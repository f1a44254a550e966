import { access, constants, lstat, realpath, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { KeyFolderError, listKeyFiles } from './key-file.js';

/**
 * Whoever can write KEYS_DIR, or a key file in it, can plant a signing key. So a folder
 * or key file that group or others may write is refused, and a key file that others
 * may read gets a warning (Kubernetes mounts secrets 0644 unless told otherwise). A key
 * file that is a symbolic link (a Kubernetes secret volume links each one into
 * `..data/`) is judged by its target, which is what gets read, and by the folder
 * holding that target. Write bits on a read-only file system do not count: nobody can
 * write there (a Kubernetes secret volume is a read-only mount of a 1777 tmpfs).
 */

const WRITABLE_BY_GROUP_OR_OTHERS = 0o022;
/** Not group: with `fsGroup`, Kubernetes makes secret files group-readable (0440) for the pod's own group. */
const READABLE_BY_OTHERS = 0o004;

export interface KeyFolderCheckOptions {
  /** Whether `path` lies on a read-only file system; injectable because tests cannot mount one. */
  readonly onReadOnlyFileSystem?: (path: string) => Promise<boolean>;
}

async function onReadOnlyFileSystem(path: string): Promise<boolean> {
  try {
    await access(path, constants.W_OK);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EROFS';
  }
}

const octal = (mode: number) => (mode & 0o7777).toString(8).padStart(4, '0');

interface Inspected {
  readonly path: string;
  readonly target: string;
  readonly mode: number;
}

async function inspectKeyFile(dir: string, name: string): Promise<Inspected> {
  const path = join(dir, name);
  try {
    const target = (await lstat(path)).isSymbolicLink() ? await realpath(path) : path;
    return { path, target, mode: (await stat(target)).mode };
  } catch (err) {
    throw new KeyFolderError(`key file ${name}: ${(err as NodeJS.ErrnoException).code ?? 'unreadable'}`);
  }
}

/**
 * Checks the folder and its key files. Throws one KeyFolderError naming every unsafe
 * path with the `chmod` that fixes it (one line each); returns the warnings.
 */
export async function checkKeyFolder(dir: string, options: KeyFolderCheckOptions = {}): Promise<string[]> {
  const readOnly = options.onReadOnlyFileSystem ?? onReadOnlyFileSystem;
  const writable = async (path: string, mode: number) => (mode & WRITABLE_BY_GROUP_OR_OTHERS) !== 0 && !(await readOnly(path));
  const files = await Promise.all((await listKeyFiles(dir)).map((name) => inspectKeyFile(dir, name)));

  const problems: string[] = [];
  const warnings: string[] = [];
  const folders = new Map([[await realpath(dir), { what: `keys folder ${dir}`, fix: dir }]]);
  for (const file of files) {
    if (file.target === file.path) continue;
    const folder = dirname(file.target);
    if (!folders.has(folder)) folders.set(folder, { what: `folder ${folder} (holding the target of ${file.path})`, fix: folder });
  }
  for (const [folder, { what, fix }] of folders) {
    const { mode } = await stat(folder);
    if (await writable(folder, mode)) {
      problems.push(
        `${what} is writable by group or others (mode ${octal(mode)}), so anyone there can plant a signing key: fix it with "chmod go-w ${fix}"`,
      );
    }
  }
  for (const { path, target, mode } of files) {
    const what = target === path ? `key file ${path}` : `key file ${path} (a link to ${target})`;
    if (await writable(target, mode)) {
      problems.push(`${what} is writable by group or others (mode ${octal(mode)}): fix it with "chmod go-w ${target}"`);
    } else if ((mode & READABLE_BY_OTHERS) !== 0) {
      warnings.push(
        `${what} is readable by others (mode ${octal(mode)}): fix it with "chmod o-r ${target}" (a Kubernetes secret volume: defaultMode: 0400)`,
      );
    }
  }
  if (problems.length > 0) throw new KeyFolderError(problems.join('\n'));
  return warnings;
}

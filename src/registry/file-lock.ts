import { type FileHandle, open, stat, unlink } from 'node:fs/promises';

/**
 * One writer at a time: a lock file created with O_EXCL, removed when the work is done.
 * A lock older than STALE_LOCK_SECONDS is left over from a crashed run and is broken.
 * Used by the operator commands that rewrite KEYS_DIR, CLIENTS_FILE or USERS_FILE.
 */

const STALE_LOCK_SECONDS = 300;

export class LockHeldError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'LockHeldError';
  }
}

/** Runs `work` holding `lock`; throws LockHeldError with `busyMessage` when another run holds it. */
export async function withLockFile<T>(lock: string, busyMessage: string, work: () => Promise<T>): Promise<T> {
  const acquire = () => open(lock, 'wx', 0o600);
  let handle: FileHandle;
  try {
    handle = await acquire();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    const age = (Date.now() - (await stat(lock)).mtimeMs) / 1000;
    if (age < STALE_LOCK_SECONDS) throw new LockHeldError(busyMessage, { cause: err });
    await unlink(lock);
    handle = await acquire();
  }
  try {
    return await work();
  } finally {
    await handle.close();
    await unlink(lock).catch(() => undefined);
  }
}

/**
 * How long the primary waits before it replaces a worker that died: the delay doubles
 * with every crash in a row, so a worker that cannot start (a broken key file, a port
 * taken) does not spin, and falls back to the base once a worker has stayed up.
 */
export interface CrashBackoffOptions {
  readonly baseMs: number;
  readonly maxMs: number;
  /** A worker that ran at least this long ends a series of crashes. */
  readonly stableMs: number;
}

export const DEFAULT_CRASH_BACKOFF: CrashBackoffOptions = { baseMs: 250, maxMs: 30_000, stableMs: 30_000 };

export class CrashBackoff {
  private crashesInARow = 0;

  constructor(private readonly options: CrashBackoffOptions = DEFAULT_CRASH_BACKOFF) {}

  /** The delay before the replacement of a worker that ran `uptimeMs` before it died. */
  delayAfterCrash(uptimeMs: number): number {
    if (uptimeMs >= this.options.stableMs) this.crashesInARow = 0;
    const delay = Math.min(this.options.maxMs, this.options.baseMs * 2 ** this.crashesInARow);
    this.crashesInARow += 1;
    return delay;
  }
}

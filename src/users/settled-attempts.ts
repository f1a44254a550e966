/**
 * Wake-ups, in this process, for sign-in attempts refused while others on the same counter
 * were still being checked: each attempt settled here wakes the longest waiter on its
 * counters, which then tries again. Attempts checked by other instances are not seen, so
 * a waiter also wakes after the time it asked for.
 */
export class SettledAttempts {
  /** Per counter key, its waiters in arrival order (a Set keeps insertion order). */
  private readonly waiting = new Map<string, Set<() => void>>();

  /** Resolves when an attempt on `key` settles here (and this waiter is next), or after `ms`. */
  next(key: string, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const waiters = this.waiting.get(key) ?? new Set<() => void>();
      this.waiting.set(key, waiters);
      const wake = () => {
        clearTimeout(timer);
        waiters.delete(wake);
        if (waiters.size === 0 && this.waiting.get(key) === waiters) this.waiting.delete(key);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      waiters.add(wake);
    });
  }

  /** An attempt on `key` settled: at most one place came free, so one waiter tries. */
  wakeOne(key: string): void {
    const first = this.waiting.get(key)?.values().next();
    if (first && !first.done) first.value();
  }

  /** Nothing in flight holds `key` any more: every waiter's answer is ready. */
  wakeAll(key: string): void {
    for (const wake of [...(this.waiting.get(key) ?? [])]) wake();
  }
}

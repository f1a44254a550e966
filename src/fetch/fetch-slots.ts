import { FetchFailed } from './errors.js';

/**
 * Admission of fetches of URLs clients control: a bounded number at once, and a smaller
 * bound per host, so one host (one client's slow server, however many URLs it makes up)
 * cannot take the slots from others. A fetch that finds every slot taken waits in a
 * bounded queue, first come first served, for a short time; past that, or with the queue
 * full, it is refused. Slots are counted and taken synchronously, so a burst cannot pass a
 * bound together.
 */

export interface FetchSlotLimits {
  /** Fetches running at once, over all hosts. */
  readonly maxConcurrentLoads: number;
  /** Fetches running or waiting at once for one host (`host:port`); one more is refused at once. */
  readonly maxLoadsPerHost: number;
  /** Fetches waiting for a slot at once; one more is refused at once. */
  readonly maxQueuedLoads: number;
  /** How long a fetch waits in the queue for a slot before it is refused. */
  readonly queueWaitMs: number;
}

/** Calls `fire` after `ms` unless cancelled (the returned function); injected so tests decide when a wait ends. */
export type Timer = (ms: number, fire: () => void) => () => void;

export const realTimer: Timer = (ms, fire) => {
  const handle = setTimeout(fire, ms);
  handle.unref();
  return () => clearTimeout(handle);
};

/** Gives the slot back; calling it again does nothing. */
export type ReleaseSlot = () => void;

interface Waiter {
  readonly host: string;
  readonly start: (release: ReleaseSlot) => void;
  cancelTimer: () => void;
}

const busy = (message: string) => new FetchFailed('busy', message);

export class FetchSlots {
  private running = 0;
  /** Per host: fetches running or waiting. */
  private readonly held = new Map<string, number>();
  /** Only ever non-empty while every slot is taken. */
  private readonly queue: Waiter[] = [];

  constructor(
    private readonly limits: FetchSlotLimits,
    private readonly timer: Timer = realTimer,
  ) {}

  /** A slot for one fetch from `host`: now, after a wait in the queue, or rejected with FetchFailed('busy'). */
  acquire(host: string): Promise<ReleaseSlot> {
    const { maxConcurrentLoads, maxLoadsPerHost, maxQueuedLoads, queueWaitMs } = this.limits;
    const held = this.held.get(host) ?? 0;
    // Waiting for a slot of its own host would only let that host fill the queue too.
    if (held >= maxLoadsPerHost) return Promise.reject(busy(`${held} fetches from ${host} are already running or waiting`));
    if (this.running < maxConcurrentLoads) {
      this.held.set(host, held + 1);
      this.running += 1;
      return Promise.resolve(this.releaser(host));
    }
    if (this.queue.length >= maxQueuedLoads)
      return Promise.reject(busy(`${maxConcurrentLoads} fetches are already running and ${this.queue.length} waiting`));
    this.held.set(host, held + 1);
    return new Promise((resolve, reject) => {
      const waiter: Waiter = { host, start: resolve, cancelTimer: () => undefined };
      waiter.cancelTimer = this.timer(queueWaitMs, () => {
        this.queue.splice(this.queue.indexOf(waiter), 1);
        this.forget(host);
        reject(busy(`no fetch slot came free within ${queueWaitMs} ms (${maxConcurrentLoads} fetches are running)`));
      });
      this.queue.push(waiter);
    });
  }

  /** Fetches running now, and waiting for a slot (tests and metrics). */
  get usage(): { readonly running: number; readonly waiting: number } {
    return { running: this.running, waiting: this.queue.length };
  }

  private releaser(host: string): ReleaseSlot {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.running -= 1;
      this.forget(host);
      const next = this.queue.shift();
      if (!next) return;
      next.cancelTimer();
      this.running += 1;
      next.start(this.releaser(next.host));
    };
  }

  private forget(host: string): void {
    const held = (this.held.get(host) ?? 1) - 1;
    if (held > 0) this.held.set(host, held);
    else this.held.delete(host);
  }
}

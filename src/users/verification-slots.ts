/**
 * A cap on concurrent password verifications, with a short bounded queue. scrypt runs on
 * password threads (src/users/password-threads.ts); without a cap, a burst of attempts queues
 * there for seconds and every real sign-in waits behind it. With the cap, the excess is refused at once.
 *
 * Hand-written rather than p-limit, p-queue or async-sema: none of them refuses work when
 * its queue is full (the one behaviour needed here), and the whole job is a counter and
 * a FIFO of waiters.
 */
export type SlotOutcome<T> = { readonly admitted: true; readonly value: T } | { readonly admitted: false };

export class VerificationSlots {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    private readonly concurrency: number,
    private readonly queueLimit: number,
  ) {}

  /** Runs `task` in a free slot (waiting in the queue if there is room), or answers `admitted: false` at once. */
  async run<T>(task: () => Promise<T>): Promise<SlotOutcome<T>> {
    if (this.running < this.concurrency) {
      this.running += 1;
    } else if (this.waiting.length < this.queueLimit) {
      // The finishing task hands its slot over: `running` stays as it is.
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      return { admitted: false };
    }
    try {
      return { admitted: true, value: await task() };
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.running -= 1;
    }
  }
}

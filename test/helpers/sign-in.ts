import type { UserRegistry } from '../../src/users/registry.js';
import type { PasswordAuthenticator } from '../../src/users/sign-in.js';

/**
 * Wraps an authenticator to count the passwords actually checked; while held, every
 * check waits (it has its verification slot) until released.
 */
export class CountingAuthenticator implements PasswordAuthenticator {
  verifications = 0;
  private gate: Promise<void> | undefined;
  private open: () => void = () => undefined;

  constructor(private readonly inner: PasswordAuthenticator) {}

  hold(): void {
    this.gate = new Promise((resolve) => (this.open = resolve));
  }

  release(): void {
    this.open();
    this.gate = undefined;
  }

  async authenticate(username: string, password: string) {
    this.verifications += 1;
    if (this.gate) await this.gate;
    return this.inner.authenticate(username, password);
  }

  /**
   * The same registry, its verifications counted from now on (for buildServer, which takes a
   * UserRegistry): the instance itself, so its private state (the merged entries) stays its own.
   */
  static around(registry: UserRegistry): { users: UserRegistry; counting: CountingAuthenticator } {
    const counting = new CountingAuthenticator({ authenticate: registry.authenticate.bind(registry) });
    registry.authenticate = (username, password) => counting.authenticate(username, password);
    return { users: registry, counting };
  }
}

/** Resolves once `condition` holds, checking after each turn of the event loop (fails after 5 s). */
export async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

import { scryptSync } from 'node:crypto';
import { UserRegistry } from '../../src/users/registry.js';
import type { PasswordAuthenticator } from '../../src/users/sign-in.js';

/** Cheap scrypt parameters (N=16, r=1): for tests that are not about scrypt's cost. */
export function cheapPasswordHash(password: string): string {
  const salt = Buffer.from('test-salt-16byte');
  return `scrypt$16$1$1$${salt.toString('base64url')}$${scryptSync(password, salt, 32, { N: 16, r: 1, p: 1 }).toString('base64url')}`;
}

/** Users `user-0` … `user-<count-1>` (password `password-<i>`) and alice, all with cheap hashes. */
export function cheapUsers(count = 0): UserRegistry {
  return UserRegistry.fromEntries([
    { username: 'alice', password_hash: cheapPasswordHash('wonderland-2026'), sub: 'user-alice' },
    ...Array.from({ length: count }, (_, i) => ({ username: `user-${i}`, password_hash: cheapPasswordHash(`password-${i}`) })),
  ]);
}

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

  /** The same registry, its verifications counted (for buildServer, which takes a UserRegistry). */
  static around(registry: UserRegistry): { users: UserRegistry; counting: CountingAuthenticator } {
    const counting = new CountingAuthenticator(registry);
    const users = Object.create(registry) as UserRegistry;
    users.authenticate = (username, password) => counting.authenticate(username, password);
    return { users, counting };
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

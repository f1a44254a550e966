import { randomBytes, scryptSync } from 'node:crypto';
import { verifyPassword } from '../../src/users/password.js';

/**
 * A valid stored password hash with cheap scrypt parameters (N=16, r=1; password.ts
 * reads them from the string), for tests that are not about scrypt's cost. Only the
 * timing tests hash at production cost (hashPassword).
 */
export function cheapPasswordHash(password: string): string {
  const salt = randomBytes(16);
  return `scrypt$16$1$1$${salt.toString('base64url')}$${scryptSync(password, salt, 32, { N: 16, r: 1, p: 1 }).toString('base64url')}`;
}

/**
 * Starts the password threads (src/users/password-threads.ts: all of them at the first check,
 * then kept) before a test that times sign-ins against the throttle's half-second wait for
 * checks in flight: a thread's start (longer under tap's preloads) is not what it is about.
 */
export async function warmPasswordThreads(): Promise<void> {
  const stored = cheapPasswordHash('warm-up');
  await Promise.all(Array.from({ length: 8 }, () => verifyPassword('warm-up', stored)));
}

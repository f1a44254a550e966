import { randomBytes, scryptSync } from 'node:crypto';

/**
 * A valid stored password hash with cheap scrypt parameters (N=16, r=1; password.ts
 * reads them from the string), for tests that are not about scrypt's cost. Only the
 * timing tests hash at production cost (hashPassword).
 */
export function cheapPasswordHash(password: string): string {
  const salt = randomBytes(16);
  return `scrypt$16$1$1$${salt.toString('base64url')}$${scryptSync(password, salt, 32, { N: 16, r: 1, p: 1 }).toString('base64url')}`;
}

import { randomBytes, timingSafeEqual } from 'node:crypto';
import { scryptOnThread } from './password-threads.js';

/**
 * User passwords are low-entropy, so they are stored with scrypt (RFC 7914), the
 * parameters kept inside the string so they can be raised later:
 *   scrypt$<N>$<r>$<p>$<salt base64url>$<hash base64url>
 */

interface ScryptParameters {
  readonly N: number;
  readonly r: number;
  readonly p: number;
}

const DEFAULTS: ScryptParameters = { N: 2 ** 15, r: 8, p: 1 };
const SALT_LENGTH = 16;
const KEY_LENGTH = 32;
/** scrypt needs 128·N·r bytes; a stored string must not make us allocate more than this. */
const MAX_MEMORY = 2 ** 30;
export const PASSWORD_HASH_PATTERN = /^scrypt\$\d{1,8}\$\d{1,2}\$\d{1,2}\$[A-Za-z0-9_-]{16,86}\$[A-Za-z0-9_-]{43}$/;

/** On a password thread (src/users/password-threads.ts): a sign-in stalls neither the event loop nor the token signatures. */
function scrypt(password: string, salt: Buffer, { N, r, p }: ScryptParameters): Promise<Buffer> {
  return scryptOnThread({ password, salt, keyLength: KEY_LENGTH, N, r, p });
}

/** The fewest characters (code points) a password set by an operator has (`users add`, the admin API). */
export const MIN_PASSWORD_LENGTH = 8;

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_LENGTH);
  const hash = await scrypt(password, salt, DEFAULTS);
  return `scrypt$${DEFAULTS.N}$${DEFAULTS.r}$${DEFAULTS.p}$${salt.toString('base64url')}$${hash.toString('base64url')}`;
}

interface StoredPassword {
  readonly params: ScryptParameters;
  readonly salt: Buffer;
  readonly hash: Buffer;
}

/**
 * The stored form, or undefined when malformed or absurd (a stored string must not make
 * us burn memory or CPU). RFC 7914 §2: N "must be larger than 1, a power of 2".
 */
function parse(stored: string): StoredPassword | undefined {
  if (!PASSWORD_HASH_PATTERN.test(stored)) return undefined;
  const [, n, cost, parallel, salt, hash] = stored.split('$') as [string, string, string, string, string, string];
  const [N, r, p] = [Number(n), Number(cost), Number(parallel)];
  const powerOfTwo = N >= 2 && (N & (N - 1)) === 0;
  if (!powerOfTwo || N > 2 ** 20 || r < 1 || r > 32 || p < 1 || p > 16 || 128 * N * r > MAX_MEMORY) return undefined;
  return { params: { N, r, p }, salt: Buffer.from(salt, 'base64url'), hash: Buffer.from(hash, 'base64url') };
}

/** Whether `stored` matches PASSWORD_HASH_PATTERN and its parameters are within the bounds above. */
export function isUsablePasswordHash(stored: string): boolean {
  return parse(stored) !== undefined;
}

let dummy: Promise<StoredPassword> | undefined;

/** A hash of the default cost, made on first need, to verify against when there is no real one. */
function dummyPassword(): Promise<StoredPassword> {
  dummy ??= hashPassword('no such user').then((stored) => parse(stored) as StoredPassword);
  return dummy;
}

/**
 * Constant-time check. With no stored hash (unknown user) or a malformed one, it still
 * runs one scrypt of the default cost against a dummy hash and returns false, so the
 * time taken does not tell an unknown user from a wrong password.
 */
export async function verifyPassword(password: string, stored: string | undefined): Promise<boolean> {
  const parsed = stored === undefined ? undefined : parse(stored);
  const against = parsed ?? (await dummyPassword());
  const computed = await scrypt(password, against.salt, against.params);
  return timingSafeEqual(computed, against.hash) && parsed !== undefined;
}

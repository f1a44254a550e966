import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * User passwords are low-entropy, so they are stored with scrypt (node:crypto), the
 * parameters kept inside the string so they can be raised later:
 *   scrypt$<N>$<r>$<p>$<salt base64url>$<hash base64url>
 */

const DEFAULTS = { N: 2 ** 15, r: 8, p: 1 } as const;
const KEY_LENGTH = 32;
export const PASSWORD_HASH_PATTERN = /^scrypt\$\d+\$\d+\$\d+\$[A-Za-z0-9_-]{16,}\$[A-Za-z0-9_-]{43}$/;

interface ScryptParameters {
  readonly N: number;
  readonly r: number;
  readonly p: number;
}

function scrypt(password: string, salt: Buffer, params: ScryptParameters): Promise<Buffer> {
  const options: ScryptOptions = { ...params, maxmem: 256 * params.N * params.r };
  return new Promise((resolve, reject) =>
    scryptCallback(password, salt, KEY_LENGTH, options, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scrypt(password, salt, DEFAULTS);
  return `scrypt$${DEFAULTS.N}$${DEFAULTS.r}$${DEFAULTS.p}$${salt.toString('base64url')}$${hash.toString('base64url')}`;
}

/** Parameters within sane bounds, or undefined: a stored string must not make us burn memory or CPU. */
function parse(stored: string): { params: ScryptParameters; salt: Buffer; hash: Buffer } | undefined {
  if (!PASSWORD_HASH_PATTERN.test(stored)) return undefined;
  const [, n, r, p, salt, hash] = stored.split('$') as [string, string, string, string, string, string];
  const params = { N: Number(n), r: Number(r), p: Number(p) };
  const powerOfTwo = params.N >= 2 && (params.N & (params.N - 1)) === 0;
  if (!powerOfTwo || params.N > 2 ** 20 || params.r < 1 || params.r > 32 || params.p < 1 || params.p > 16) return undefined;
  return { params, salt: Buffer.from(salt, 'base64url'), hash: Buffer.from(hash, 'base64url') };
}

let dummy: Promise<string> | undefined;

/**
 * Constant-time check. With no stored hash (unknown user) or a malformed one, it still
 * runs one scrypt of the default cost, so timing does not tell unknown users apart.
 */
export async function verifyPassword(password: string, stored: string | undefined): Promise<boolean> {
  const parsed = stored === undefined ? undefined : parse(stored);
  if (!parsed) {
    dummy ??= hashPassword('no such user');
    const fallback = parse(await dummy);
    if (fallback) await scrypt(password, fallback.salt, fallback.params);
    return false;
  }
  const computed = await scrypt(password, parsed.salt, parsed.params);
  return computed.length === parsed.hash.length && timingSafeEqual(computed, parsed.hash);
}

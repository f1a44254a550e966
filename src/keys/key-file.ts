import { randomBytes } from 'node:crypto';
import { chmod, open, readdir, readFile, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { calculateJwkThumbprint, exportJWK, generateKeyPair } from 'jose';
import { z } from 'zod';
import { SIGNING_ALGORITHMS, type SigningAlgorithm } from '@oauth2-token-service/verifier/algorithms';

/**
 * One signing key per file in KEYS_DIR: `<kid>.json`, mode 0600, holding the private
 * JWK and its lifecycle times (seconds since the epoch). Shared by the server, which
 * only reads, and the rotation script, which writes.
 */

export { SIGNING_ALGORITHMS, type SigningAlgorithm } from '@oauth2-token-service/verifier/algorithms';

const PrivateJwkSchema = z
  .object({
    kty: z.enum(['EC', 'OKP', 'RSA']),
    kid: z.string().min(1),
    alg: z.enum(SIGNING_ALGORITHMS),
    d: z.string().min(1),
  })
  .loose();

export const KeyRecordSchema = z
  .object({
    kid: z.string().regex(/^[A-Za-z0-9_-]{1,128}$/, 'kid must be 1-128 base64url characters'),
    alg: z.enum(SIGNING_ALGORITHMS),
    /** When the key was created, and so first published in the JWKS. */
    created_at: z.number().int().nonnegative(),
    /** From this instant the key signs new tokens (unless a newer key does). */
    signs_from: z.number().int().nonnegative(),
    /** From this instant the key no longer signs; set when a successor is scheduled. */
    signs_until: z.number().int().nonnegative().optional(),
    /** From this instant every token it signed has expired: unpublish and delete. */
    publish_until: z.number().int().nonnegative().optional(),
    jwk: PrivateJwkSchema,
  })
  .strict()
  .refine((r) => r.jwk.kid === r.kid && r.jwk.alg === r.alg, { message: 'jwk.kid and jwk.alg must match kid and alg' })
  // A key must stay published while it signs: otherwise it would sign tokens no verifier can check.
  .refine((r) => r.publish_until === undefined || (r.signs_until !== undefined && r.publish_until >= r.signs_until), {
    message: 'publish_until needs a signs_until no later than it (a key is published for as long as it signs)',
    path: ['publish_until'],
  });

export type KeyRecord = z.infer<typeof KeyRecordSchema>;

/** A key's identity and times, without its key material: what the lifecycle rules read. */
export type KeyTimes = Omit<KeyRecord, 'jwk'>;

export async function generateKeyRecord(alg: SigningAlgorithm, now: number, signsFrom: number): Promise<KeyRecord> {
  const { privateKey } = await generateKeyPair(alg, { extractable: true, ...(alg === 'EdDSA' ? { crv: 'Ed25519' } : {}) });
  const jwk = await exportJWK(privateKey);
  // RFC 7638 thumbprint: a kid derived from the key itself, unique without coordination.
  const kid = await calculateJwkThumbprint(jwk, 'sha256');
  return {
    kid,
    alg,
    created_at: now,
    signs_from: signsFrom,
    jwk: { ...jwk, kid, alg, use: 'sig', kty: jwk.kty as 'EC' | 'OKP' | 'RSA', d: jwk.d as string },
  };
}

export function keyFileName(kid: string): string {
  return `${kid}.json`;
}

function isKeyFileName(name: string): boolean {
  return name.endsWith('.json') && !name.startsWith('.');
}

export class KeyFolderError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KeyFolderError';
  }
}

/** The names of the key files in `dir`, sorted. */
export async function listKeyFiles(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).filter(isKeyFileName).sort();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const reason = code === 'ENOENT' ? 'no such folder (create it with "oauth2-token-service keys rotate")' : (code ?? String(err));
    throw new KeyFolderError(`cannot read keys folder ${dir}: ${reason}`);
  }
}

/** Reads every key file; any unreadable or invalid file fails the whole read, naming the file. */
export async function readKeyFolder(dir: string): Promise<KeyRecord[]> {
  const names = await listKeyFiles(dir);
  const records: KeyRecord[] = [];
  const seen = new Set<string>();
  for (const name of names) {
    let json: unknown;
    try {
      json = JSON.parse(await readFile(join(dir, name), 'utf8'));
    } catch (err) {
      const reason = err instanceof SyntaxError ? 'not valid JSON' : ((err as NodeJS.ErrnoException).code ?? 'unreadable');
      throw new KeyFolderError(`key file ${name}: ${reason}`);
    }
    const parsed = KeyRecordSchema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new KeyFolderError(`key file ${name}: ${issue?.path.join('.') || 'record'}: ${issue?.message}`);
    }
    if (seen.has(parsed.data.kid)) throw new KeyFolderError(`key file ${name}: duplicate kid ${parsed.data.kid}`);
    seen.add(parsed.data.kid);
    records.push(parsed.data);
  }
  return records;
}

/**
 * Writes through a temporary file and rename, so a server re-reading the folder
 * never sees half a key. The file is created with mode 0600: it holds a private key.
 */
export async function writeKeyFile(dir: string, record: KeyRecord): Promise<void> {
  const target = join(dir, keyFileName(record.kid));
  const temporary = join(dir, `.${record.kid}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(temporary, 'wx', 0o600);
  try {
    await handle.writeFile(`${JSON.stringify(record, null, 2)}\n`, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  await chmod(temporary, 0o600);
  await rename(temporary, target);
}

export async function deleteKeyFile(dir: string, kid: string): Promise<void> {
  await unlink(join(dir, keyFileName(kid)));
}

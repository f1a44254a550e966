import { open, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { deleteKeyFile, generateKeyRecord, readKeyFolder, writeKeyFile, type KeyRecord, type SigningAlgorithm } from './key-file.js';
import { planCleanup, planRevocation, planRotation, signingKeyAt, type RotationPlan } from './lifecycle.js';

/** The file side of the key lifecycle: plans from lifecycle.ts applied to KEYS_DIR under a lock. */

export interface KeyChange {
  readonly action: 'created' | 'retiring' | 'kept' | 'deleted' | 'revoked';
  readonly key: KeyRecord;
}

const LOCK_FILE = '.rotate.lock';
const STALE_LOCK_SECONDS = 300;

/** One rotation at a time per folder (cron on several hosts may share it). */
async function withFolderLock<T>(dir: string, work: () => Promise<T>): Promise<T> {
  const lock = join(dir, LOCK_FILE);
  const acquire = () => open(lock, 'wx', 0o600);
  let handle;
  try {
    handle = await acquire();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    const age = (Date.now() - (await stat(lock)).mtimeMs) / 1000;
    if (age < STALE_LOCK_SECONDS) throw new Error(`another rotation holds ${lock}; try again later`);
    await unlink(lock);
    handle = await acquire();
  }
  try {
    return await work();
  } finally {
    await handle.close();
    await unlink(lock).catch(() => undefined);
  }
}

async function applyPlan(dir: string, plan: RotationPlan, revokedKid?: string): Promise<KeyChange[]> {
  for (const key of [...plan.create, ...plan.retire]) await writeKeyFile(dir, key);
  for (const key of plan.remove) await deleteKeyFile(dir, key.kid);
  return [
    ...plan.keep.map((key) => ({ action: 'kept' as const, key })),
    ...plan.retire.map((key) => ({ action: 'retiring' as const, key })),
    ...plan.create.map((key) => ({ action: 'created' as const, key })),
    ...plan.remove.map((key) => ({ action: key.kid === revokedKid ? ('revoked' as const) : ('deleted' as const), key })),
  ];
}

export interface RotationOptions {
  readonly alg?: SigningAlgorithm;
  /** Seconds a new key is published before it signs (normally the JWKS cache lifetime). */
  readonly delay: number;
  readonly accessTokenTtl: number;
  readonly now?: number;
}

export async function rotateKeys(dir: string, options: RotationOptions): Promise<KeyChange[]> {
  return withFolderLock(dir, async () => {
    const now = options.now ?? Math.floor(Date.now() / 1000);
    const keys = await readKeyFolder(dir);
    const fresh = await generateKeyRecord(options.alg ?? 'ES256', now, now);
    return applyPlan(dir, planRotation(keys, fresh, { now, delay: options.delay, accessTokenTtl: options.accessTokenTtl }));
  });
}

export async function pruneKeys(dir: string, now = Math.floor(Date.now() / 1000)): Promise<KeyChange[]> {
  return withFolderLock(dir, async () => applyPlan(dir, planCleanup(await readKeyFolder(dir), now)));
}

export async function revokeKey(
  dir: string,
  kid: string,
  options: { alg?: SigningAlgorithm; accessTokenTtl: number; now?: number },
): Promise<KeyChange[]> {
  return withFolderLock(dir, async () => {
    const now = options.now ?? Math.floor(Date.now() / 1000);
    const keys = await readKeyFolder(dir);
    if (!keys.some((k) => k.kid === kid)) throw new Error(`no key with kid ${kid} in ${dir}`);
    const replacement = await generateKeyRecord(options.alg ?? 'ES256', now, now);
    return applyPlan(dir, planRevocation(keys, kid, replacement, { now, accessTokenTtl: options.accessTokenTtl }), kid);
  });
}

/** Creates a first key, signing at once, when none signs now; returns it, or undefined if one already does. */
export async function ensureSigningKey(dir: string, options: { alg?: SigningAlgorithm; accessTokenTtl: number }): Promise<KeyRecord | undefined> {
  const now = Math.floor(Date.now() / 1000);
  if (signingKeyAt(await readKeyFolder(dir), now)) return undefined;
  const changes = await rotateKeys(dir, { ...options, delay: 0, now });
  return changes.find((c) => c.action === 'created')?.key;
}

import { join } from 'node:path';
import { nowSeconds } from '../clock.js';
import { withLockFile } from '../registry/file-lock.js';
import { checkKeyFolder } from './folder-safety.js';
import { deleteKeyFile, generateKeyRecord, type KeyRecord, readKeyFolder, type SigningAlgorithm, writeKeyFile } from './key-file.js';
import { planCleanup, planRevocation, planRotation, type RotationPlan, signingKeyAt, signsAt } from './lifecycle.js';

/** The file side of the key lifecycle: plans from lifecycle.ts applied to KEYS_DIR under a lock. */

export type KeyChange =
  | { readonly action: 'retiring' | 'kept' | 'deleted' | 'revoked'; readonly key: KeyRecord }
  /** `stopGap`: the key signs at once because no other key does; `replaces` names the revoked signer. */
  | { readonly action: 'created'; readonly key: KeyRecord; readonly stopGap?: { readonly replaces?: string } }
  /** The key signs longer than it did (until `from`), because no other key would sign from then. */
  | { readonly action: 'extended'; readonly key: KeyRecord; readonly from: number };

const LOCK_FILE = '.rotate.lock';

/**
 * One rotation at a time per folder (cron on several hosts may share it). A folder the
 * server would refuse (group- or world-writable) is refused here too, before anything
 * is written into it.
 */
async function withFolderLock<T>(dir: string, work: () => Promise<T>): Promise<T> {
  await checkKeyFolder(dir);
  const lock = join(dir, LOCK_FILE);
  return withLockFile(lock, `another rotation holds ${lock}; try again later`, work);
}

interface Revocation {
  readonly kid: string;
  /** Whether the revoked key was the one signing now (then a stop-gap replaces it). */
  readonly wasSigning: boolean;
}

/** Writes first, deletes last: a server reloading in between sees a key that signs. */
async function applyPlan(dir: string, plan: RotationPlan, revocation?: Revocation): Promise<KeyChange[]> {
  const extended = plan.extend.map((e) => e.key);
  for (const key of [...plan.create, ...plan.retire, ...extended]) await writeKeyFile(dir, key);
  for (const key of plan.remove) await deleteKeyFile(dir, key.kid);
  const stopGap = revocation?.wasSigning ? { replaces: revocation.kid } : {};
  return [
    ...plan.keep.map((key) => ({ action: 'kept' as const, key })),
    ...plan.retire.map((key) => ({ action: 'retiring' as const, key })),
    ...plan.extend.map(({ key, from }) => ({ action: 'extended' as const, key, from })),
    ...plan.create.map((key) => ({ action: 'created' as const, key, ...(key === plan.stopGap ? { stopGap } : {}) })),
    ...plan.remove.map((key) => ({ action: key.kid === revocation?.kid ? ('revoked' as const) : ('deleted' as const), key })),
  ];
}

export interface RotationOptions {
  readonly alg?: SigningAlgorithm | undefined;
  /** Seconds a new key is published before it signs (normally the JWKS cache lifetime). */
  readonly delay: number;
  readonly accessTokenTtl: number;
  readonly now?: number;
}

export async function rotateKeys(dir: string, options: RotationOptions): Promise<KeyChange[]> {
  return withFolderLock(dir, async () => {
    const now = options.now ?? nowSeconds();
    const keys = await readKeyFolder(dir);
    const fresh = await generateKeyRecord(options.alg ?? 'ES256', now, now);
    return applyPlan(dir, planRotation(keys, fresh, { now, delay: options.delay, accessTokenTtl: options.accessTokenTtl }));
  });
}

/** Options of the runs that may need a stop-gap key; by default it has the algorithm of the key it stands in for. */
export interface RepairOptions {
  readonly alg?: SigningAlgorithm | undefined;
  readonly accessTokenTtl: number;
  readonly now?: number;
}

const newest = (keys: readonly KeyRecord[]) =>
  keys.reduce<KeyRecord | undefined>((a, k) => (!a || k.created_at > a.created_at ? k : a), undefined);

export async function pruneKeys(dir: string, options: RepairOptions): Promise<KeyChange[]> {
  return withFolderLock(dir, async () => {
    const now = options.now ?? nowSeconds();
    const keys = await readKeyFolder(dir);
    const spare = await generateKeyRecord(options.alg ?? newest(keys)?.alg ?? 'ES256', now, now);
    return applyPlan(dir, planCleanup(keys, spare, { now, accessTokenTtl: options.accessTokenTtl }));
  });
}

export async function revokeKey(dir: string, kid: string, options: RepairOptions): Promise<KeyChange[]> {
  return withFolderLock(dir, async () => {
    const now = options.now ?? nowSeconds();
    const keys = await readKeyFolder(dir);
    const revoked = keys.find((k) => k.kid === kid);
    if (!revoked) throw new Error(`no key with kid ${kid} in ${dir}`);
    const replacement = await generateKeyRecord(options.alg ?? revoked.alg, now, now);
    const plan = planRevocation(keys, kid, replacement, { now, accessTokenTtl: options.accessTokenTtl });
    return applyPlan(dir, plan, { kid, wasSigning: signsAt(revoked, now) });
  });
}

/** Creates a first key, signing at once, when none signs now; returns it, or undefined if one already does. */
export async function ensureSigningKey(
  dir: string,
  options: { alg?: SigningAlgorithm; accessTokenTtl: number },
): Promise<KeyRecord | undefined> {
  const now = nowSeconds();
  if (signingKeyAt(await readKeyFolder(dir), now)) return undefined;
  const changes = await rotateKeys(dir, { ...options, delay: 0, now });
  return changes.find((c) => c.action === 'created')?.key;
}

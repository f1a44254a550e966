import { join } from 'node:path';
import { nowSeconds } from '../clock.js';
import { withLockFile } from '../registry/file-lock.js';
import { checkKeyFolder } from './folder-safety.js';
import {
  deleteKeyFile,
  generateKeyRecord,
  type KeyRecord,
  readKeyFolder,
  SIGNING_ALGORITHMS,
  type SigningAlgorithm,
  writeKeyFile,
} from './key-file.js';
import { chainAlgorithms, signingKeyFor, signsAt } from './lifecycle.js';
import { cleanupNeedsSpare, planCleanup, planRevocation, planRotation, type RotationPlan } from './plans.js';
import { defaultChains } from './signing-algorithms.js';

/** The file side of the key lifecycle: plans from plans.ts applied to KEYS_DIR under a lock, chain by chain. */

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

/**
 * Writes first, deletes last: a server reloading in between sees a key that signs, in
 * every chain. The changes are listed chain by chain, in the order of `plans`.
 */
async function applyPlans(dir: string, plans: readonly RotationPlan[], revocation?: Revocation): Promise<KeyChange[]> {
  for (const plan of plans) {
    for (const key of [...plan.create, ...plan.retire, ...plan.extend.map((e) => e.key)]) await writeKeyFile(dir, key);
  }
  for (const plan of plans) for (const key of plan.remove) await deleteKeyFile(dir, key.kid);
  const stopGap = revocation?.wasSigning ? { replaces: revocation.kid } : {};
  return plans.flatMap((plan) => [
    ...plan.keep.map((key) => ({ action: 'kept' as const, key })),
    ...plan.retire.map((key) => ({ action: 'retiring' as const, key })),
    ...plan.extend.map(({ key, from }) => ({ action: 'extended' as const, key, from })),
    ...plan.create.map((key) => ({ action: 'created' as const, key, ...(key === plan.stopGap ? { stopGap } : {}) })),
    ...plan.remove.map((key) => ({ action: key.kid === revocation?.kid ? ('revoked' as const) : ('deleted' as const), key })),
  ]);
}

/** The order chains are listed in: that of SIGNING_ALGORITHMS. */
function inChainOrder(algs: Iterable<SigningAlgorithm>): SigningAlgorithm[] {
  const wanted = new Set(algs);
  return SIGNING_ALGORITHMS.filter((alg) => wanted.has(alg));
}

export interface RotationOptions {
  /** Only this chain, started if absent. Undefined: every chain present, and the default chains (defaultChains) when missing. */
  readonly alg?: SigningAlgorithm | undefined;
  /** ACCESS_TOKEN_SIGNING_ALG, if set: the access-token chain a run without `alg` starts when missing (see defaultChains). */
  readonly accessTokenAlg?: SigningAlgorithm | undefined;
  /** Seconds a new key is published before it signs (normally the JWKS cache lifetime). */
  readonly delay: number;
  readonly accessTokenTtl: number;
  readonly now?: number;
}

/** Publishes a successor in each chain rotated; a chain's first key signs at once. */
export async function rotateKeys(dir: string, options: RotationOptions): Promise<KeyChange[]> {
  return withFolderLock(dir, async () => {
    const now = options.now ?? nowSeconds();
    const keys = await readKeyFolder(dir);
    const algs = options.alg ? [options.alg] : inChainOrder([...chainAlgorithms(keys), ...defaultChains(keys, options.accessTokenAlg)]);
    const plans: RotationPlan[] = [];
    for (const alg of algs) {
      const fresh = await generateKeyRecord(alg, now, now);
      plans.push(planRotation(keys, fresh, { now, delay: options.delay, accessTokenTtl: options.accessTokenTtl }));
    }
    return applyPlans(dir, plans);
  });
}

export interface RepairOptions {
  readonly accessTokenTtl: number;
  readonly now?: number;
}

/**
 * Deletes the expired keys of every chain (or of chain `alg` only; never starts one); a
 * chain left with no signer now gets a stop-gap of its algorithm.
 */
export async function pruneKeys(
  dir: string,
  options: RepairOptions & { readonly alg?: SigningAlgorithm | undefined },
): Promise<KeyChange[]> {
  return withFolderLock(dir, async () => {
    const now = options.now ?? nowSeconds();
    const keys = await readKeyFolder(dir);
    const plans: RotationPlan[] = [];
    for (const alg of chainAlgorithms(keys).filter((chain) => !options.alg || chain === options.alg)) {
      const spare = cleanupNeedsSpare(keys, alg, now) ? await generateKeyRecord(alg, now, now) : undefined;
      plans.push(planCleanup(keys, alg, { now, accessTokenTtl: options.accessTokenTtl, spare }));
    }
    return applyPlans(dir, plans);
  });
}

/** Deletes key `kid` at once; a replacement of its algorithm signs at once if its chain would have no signer now. */
export async function revokeKey(dir: string, kid: string, options: RepairOptions): Promise<KeyChange[]> {
  return withFolderLock(dir, async () => {
    const now = options.now ?? nowSeconds();
    const keys = await readKeyFolder(dir);
    const revoked = keys.find((k) => k.kid === kid);
    if (!revoked) throw new Error(`no key with kid ${kid} in ${dir}`);
    const replacement = await generateKeyRecord(revoked.alg, now, now);
    const plan = planRevocation(keys, kid, replacement, { now, accessTokenTtl: options.accessTokenTtl });
    return applyPlans(dir, [plan], { kid, wasSigning: signsAt(revoked, now) });
  });
}

/**
 * Development: makes sure the default chains (the access-token chain and RS256) each have
 * a key that signs now, creating one that signs at once where none does; returns the keys created.
 */
export async function ensureSigningKey(
  dir: string,
  options: { accessTokenAlg?: SigningAlgorithm | undefined; accessTokenTtl: number },
): Promise<KeyRecord[]> {
  const now = nowSeconds();
  const keys = await readKeyFolder(dir);
  const created: KeyRecord[] = [];
  for (const alg of defaultChains(keys, options.accessTokenAlg)) {
    if (signingKeyFor(keys, alg, now)) continue;
    const changes = await rotateKeys(dir, { alg, delay: 0, accessTokenTtl: options.accessTokenTtl, now });
    created.push(...changes.flatMap((c) => (c.action === 'created' ? [c.key] : [])));
  }
  return created;
}

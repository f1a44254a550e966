import type { KeyRecord, SigningAlgorithm } from './key-file.js';
import { chainOf, firstUnsignedInstant, isExpiredAt, signingKeyAt, signingKeyFor } from './lifecycle.js';

/**
 * The plans `keys rotate`, `prune` and `revoke` apply (src/keys/rotation.ts): pure, over
 * the rules of lifecycle.ts. A plan works on one chain, `fresh.alg`'s (or the spare's, or
 * the revoked key's), leaves the keys of other algorithms out of it, and keeps the
 * invariant for its chain: after it, some key of that algorithm signs at every instant
 * from now on.
 */

function retire(key: KeyRecord, at: number, accessTokenTtl: number): KeyRecord {
  return { ...key, signs_until: at, publish_until: at + accessTokenTtl };
}

/** The key signing until `until` (for good when undefined), published as long as the tokens it signs live. */
function signUntil(key: KeyRecord, until: number | undefined, accessTokenTtl: number): KeyRecord {
  const { signs_until: _end, publish_until: _unpublish, ...openEnded } = key;
  if (until === undefined) return openEnded;
  return { ...openEnded, signs_until: until, publish_until: Math.max(until + accessTokenTtl, key.publish_until ?? 0) };
}

/** The earliest instant after `after` at which a key with a non-empty window starts signing. */
function nextStart(keys: readonly KeyRecord[], after: number): number | undefined {
  const starts = keys
    .filter((k) => k.signs_from > after && (k.signs_until === undefined || k.signs_until > k.signs_from))
    .map((k) => k.signs_from);
  return starts.length > 0 ? Math.min(...starts) : undefined;
}

/** A key whose signing window grew to close a gap; `from` is where it used to stop. */
export interface Extension {
  readonly key: KeyRecord;
  readonly from: number;
}

export interface RotationPlan {
  /** Unchanged keys. */
  readonly keep: KeyRecord[];
  /** New keys to write. */
  readonly create: KeyRecord[];
  /** Existing keys whose signing window now ends. */
  readonly retire: KeyRecord[];
  /** Existing keys that sign longer, because no other key would sign after them. */
  readonly extend: Extension[];
  /** Keys to delete: expired, or revoked. */
  readonly remove: KeyRecord[];
  /** The created key that signs at once because no other key signs now. */
  readonly stopGap?: KeyRecord;
}

type DraftPlan = Pick<RotationPlan, 'keep' | 'create' | 'retire' | 'remove'>;

/**
 * Completes a plan so that it keeps the invariant. A gap that opens later is closed by
 * the key that signs up to it, which signs on until the next key starts (or for good);
 * a gap now, by `spare` signing at once until then. Removed (revoked) keys are never
 * extended: they are not among the candidates.
 */
function closeSigningGaps(draft: DraftPlan, spare: KeyRecord | undefined, now: number, accessTokenTtl: number): RotationPlan {
  let keys = [...draft.keep, ...draft.retire, ...draft.create];
  const extended = new Map<string, Extension>();
  let stopGap: KeyRecord | undefined;
  for (let gap = firstUnsignedInstant(keys, now); gap !== undefined; gap = firstUnsignedInstant(keys, now)) {
    const until = nextStart(keys, gap);
    if (gap === now) {
      if (!spare || stopGap) throw new Error('no key signs now and no replacement was provided');
      stopGap = signUntil({ ...spare, created_at: now, signs_from: now }, until, accessTokenTtl);
      keys = [...keys, stopGap];
      continue;
    }
    // Integer seconds: the key that signed just before the gap signed at `gap - 1`.
    const last = signingKeyAt(
      keys.filter((k) => k.signs_until === gap),
      gap - 1,
    );
    if (!last) throw new Error(`no key signs just before ${gap}`);
    const grown = signUntil(last, until, accessTokenTtl);
    extended.set(last.kid, { key: grown, from: extended.get(last.kid)?.from ?? gap });
    keys = keys.map((k) => (k.kid === last.kid ? grown : k));
  }
  const unchanged = (k: KeyRecord) => !extended.has(k.kid);
  return {
    keep: draft.keep.filter(unchanged),
    create: stopGap ? [...draft.create, stopGap] : draft.create,
    retire: draft.retire.filter(unchanged),
    extend: [...extended.values()],
    remove: draft.remove,
    ...(stopGap ? { stopGap } : {}),
  };
}

/**
 * Adds `fresh` as the next signing key of its chain (the keys of `fresh.alg`). With no key
 * of the chain signing now (a new chain, or the first run) it signs at once; otherwise
 * from `now + delay`, and every key of the chain that would still sign then stops at that
 * instant. Keys of other algorithms are not part of the plan.
 */
export function planRotation(
  keys: readonly KeyRecord[],
  fresh: KeyRecord,
  options: { now: number; delay: number; accessTokenTtl: number },
): RotationPlan {
  const { now, accessTokenTtl } = options;
  const chain = chainOf(keys, fresh.alg);
  const current = chain.filter((k) => !isExpiredAt(k, now));
  const startsAt = signingKeyAt(current, now) ? now + options.delay : now;
  const next: KeyRecord = { ...fresh, signs_from: startsAt };

  const keep: KeyRecord[] = [];
  const retiring: KeyRecord[] = [];
  for (const key of current) {
    if (key.signs_until === undefined || key.signs_until > startsAt) retiring.push(retire(key, startsAt, accessTokenTtl));
    else keep.push(key);
  }
  const draft = { keep, create: [next], retire: retiring, remove: chain.filter((k) => isExpiredAt(k, now)) };
  return closeSigningGaps(draft, undefined, now, accessTokenTtl);
}

/** Whether a cleanup of chain `alg` needs a spare: no key of it signs now (deleting expired keys never changes that). */
export function cleanupNeedsSpare(keys: readonly KeyRecord[], alg: SigningAlgorithm, now: number): boolean {
  return signingKeyFor(keys, alg, now) === undefined;
}

/**
 * Deletes the keys of chain `alg` whose tokens have all expired, never one that signs now
 * or is still published; `spare` (of that algorithm) signs at once if no key of the chain
 * is left signing now, and must be given then (see cleanupNeedsSpare).
 */
export function planCleanup(
  keys: readonly KeyRecord[],
  alg: SigningAlgorithm,
  options: { now: number; accessTokenTtl: number; spare?: KeyRecord | undefined },
): RotationPlan {
  const { now, spare } = options;
  if (spare && spare.alg !== alg) throw new Error(`a spare of chain ${alg} must be an ${alg} key, not ${spare.alg}`);
  const chain = chainOf(keys, alg);
  const draft = {
    keep: chain.filter((k) => !isExpiredAt(k, now)),
    create: [],
    retire: [],
    remove: chain.filter((k) => isExpiredAt(k, now)),
  };
  return closeSigningGaps(draft, spare, now, options.accessTokenTtl);
}

/**
 * Removes a compromised key at once. If that leaves its chain with nothing signing now,
 * `replacement` (of the revoked key's algorithm) signs immediately (a revoked key must not
 * keep signing while a successor waits out its delay), until the earliest already-scheduled
 * key of the chain takes over; if it leaves a gap later, the key before the gap signs on.
 */
export function planRevocation(
  keys: readonly KeyRecord[],
  kid: string,
  replacement: KeyRecord,
  options: { now: number; accessTokenTtl: number },
): RotationPlan {
  const { now } = options;
  const revoked = keys.filter((k) => k.kid === kid);
  if (revoked.some((k) => k.alg !== replacement.alg)) {
    throw new Error(`the replacement of ${kid} must keep its chain's algorithm, not ${replacement.alg}`);
  }
  const others = chainOf(keys, replacement.alg).filter((k) => k.kid !== kid);
  const draft = {
    keep: others.filter((k) => !isExpiredAt(k, now)),
    create: [],
    retire: [],
    remove: [...revoked, ...others.filter((k) => isExpiredAt(k, now))],
  };
  return closeSigningGaps(draft, replacement, now, options.accessTokenTtl);
}

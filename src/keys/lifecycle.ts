import { type KeyTimes, SIGNING_ALGORITHMS, type SigningAlgorithm } from './key-file.js';

/**
 * Pure rules of the key lifecycle; every time is in seconds since the epoch.
 *
 * A folder holds one chain of keys per algorithm in use (ES256 signs access tokens by
 * default, RS256 is the ID-token default): every rule below holds within a chain, and
 * chains never stand in for each other. The plans that change a chain are in plans.ts.
 *
 *   created_at ──published──▶ signs_from ──signing──▶ signs_until ──published──▶ publish_until ▶ deleted
 *
 * A new key is published at once but signs only after a propagation delay (at least
 * the JWKS cache lifetime), so verifiers holding a cached JWKS learn it before they
 * meet it. Its predecessor stops signing at that instant and stays published until
 * every token it signed has expired. The choice is a function of time alone, so
 * instances reading one folder agree without talking to each other.
 *
 * The invariant every plan keeps, for every algorithm that has keys: after it, some key
 * of that algorithm signs at every instant from now on (`firstUnsignedInstant` of the
 * chain is undefined), so no instance is ever left without a signer, whatever is revoked
 * or pruned.
 */

/** The keys of one chain: those of algorithm `alg`. */
export function chainOf<K extends KeyTimes>(keys: readonly K[], alg: SigningAlgorithm): K[] {
  return keys.filter((k) => k.alg === alg);
}

/** The algorithms that have keys in `keys`, in the order of SIGNING_ALGORITHMS. */
export function chainAlgorithms(keys: readonly KeyTimes[]): SigningAlgorithm[] {
  return SIGNING_ALGORITHMS.filter((alg) => keys.some((k) => k.alg === alg));
}

export function signsAt(key: KeyTimes, now: number): boolean {
  return key.signs_from <= now && (key.signs_until === undefined || now < key.signs_until);
}

export function isPublishedAt(key: KeyTimes, now: number): boolean {
  return key.publish_until === undefined || now < key.publish_until;
}

/** Past both its signing window and its publication: every token it signed has expired, so it may go. */
export function isExpiredAt(key: KeyTimes, now: number): boolean {
  return !isPublishedAt(key, now) && key.signs_until !== undefined && key.signs_until <= now;
}

/** The newest key inside its signing window at `now`, of algorithm `alg` when given. */
function newestSigning<K extends KeyTimes>(keys: readonly K[], now: number, alg?: SigningAlgorithm): K | undefined {
  let best: K | undefined;
  for (const key of keys) {
    if ((alg !== undefined && key.alg !== alg) || !signsAt(key, now)) continue;
    if (!best || key.signs_from > best.signs_from || (key.signs_from === best.signs_from && key.created_at > best.created_at)) {
      best = key;
    }
  }
  return best;
}

/** Of the keys of one chain, the one that signs at `now`: the newest one inside its signing window. */
export function signingKeyAt<K extends KeyTimes>(keys: readonly K[], now: number): K | undefined {
  return newestSigning(keys, now);
}

/** The signer of algorithm `alg` at `now`: the newest key of that algorithm inside its window; never a key of another one. */
export function signingKeyFor<K extends KeyTimes>(keys: readonly K[], alg: SigningAlgorithm, now: number): K | undefined {
  return newestSigning(keys, now, alg);
}

/** The algorithms some key signs with at `now`, in the order of SIGNING_ALGORITHMS. */
export function signingAlgorithmsAt(keys: readonly KeyTimes[], now: number): SigningAlgorithm[] {
  return chainAlgorithms(keys).filter((alg) => signingKeyFor(keys, alg, now));
}

/**
 * Where a key stands at `now`, as `keys list` shows it: `signing` (the one key of its
 * chain that signs now), `scheduled` (published, signs later), `retiring` (published, signs no more: its
 * window ended, is empty, or a newer key outranks it), `expired` (every token it signed
 * has expired: the next run deletes it).
 */
export type KeyState = 'signing' | 'scheduled' | 'retiring' | 'expired';

export function keyStateAt(key: KeyTimes, keys: readonly KeyTimes[], now: number): KeyState {
  if (isExpiredAt(key, now)) return 'expired';
  if (signingKeyFor(keys, key.alg, now)?.kid === key.kid) return 'signing';
  const willSign = key.signs_from > now && (key.signs_until === undefined || key.signs_until > key.signs_from);
  return willSign ? 'scheduled' : 'retiring';
}

/**
 * The key that takes over signing next in a chain (`keys` of one algorithm): of the keys
 * scheduled at `now` (published, signing later), the one whose window opens first;
 * undefined when no successor is scheduled.
 */
export function nextScheduledKey<K extends KeyTimes>(keys: readonly K[], now: number): K | undefined {
  let next: K | undefined;
  for (const key of keys) {
    if (keyStateAt(key, keys, now) !== 'scheduled') continue;
    if (!next || key.signs_from < next.signs_from) next = key;
  }
  return next;
}

/**
 * The first instant from `now` on at which no key of the chain `keys` signs, or undefined
 * when their signing windows cover [now, ∞) without a gap.
 */
export function firstUnsignedInstant(keys: readonly KeyTimes[], now: number): number | undefined {
  let instant = now;
  for (;;) {
    const signing = keys.filter((k) => signsAt(k, instant));
    if (signing.length === 0) return instant;
    if (signing.some((k) => k.signs_until === undefined)) return undefined;
    // Strictly later than `instant`: each of them signs at `instant`, so ends after it.
    instant = Math.max(...signing.map((k) => k.signs_until as number));
  }
}

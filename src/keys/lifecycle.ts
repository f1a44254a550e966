import type { KeyRecord } from './key-file.js';

/**
 * Pure rules of the key lifecycle; every time is in seconds since the epoch.
 *
 *   created_at ──published──▶ signs_from ──signing──▶ signs_until ──published──▶ publish_until ▶ deleted
 *
 * A new key is published at once but signs only after a propagation delay (at least
 * the JWKS cache lifetime), so verifiers holding a cached JWKS learn it before they
 * meet it. Its predecessor stops signing at that instant and stays published until
 * every token it signed has expired. The choice is a function of time alone, so
 * instances reading one folder agree without talking to each other.
 */

export function signsAt(key: KeyRecord, now: number): boolean {
  return key.signs_from <= now && (key.signs_until === undefined || now < key.signs_until);
}

export function isPublishedAt(key: KeyRecord, now: number): boolean {
  return key.publish_until === undefined || now < key.publish_until;
}

/** The key that signs at `now`: the newest one inside its signing window. */
export function signingKeyAt<K extends KeyRecord>(keys: readonly K[], now: number): K | undefined {
  let best: K | undefined;
  for (const key of keys) {
    if (!signsAt(key, now)) continue;
    if (!best || key.signs_from > best.signs_from || (key.signs_from === best.signs_from && key.created_at > best.created_at)) {
      best = key;
    }
  }
  return best;
}

function retire(key: KeyRecord, at: number, accessTokenTtl: number): KeyRecord {
  return { ...key, signs_until: at, publish_until: at + accessTokenTtl };
}

export interface RotationPlan {
  /** Unchanged keys. */
  readonly keep: KeyRecord[];
  /** New keys to write. */
  readonly create: KeyRecord[];
  /** Existing keys whose signing window now ends. */
  readonly retire: KeyRecord[];
  /** Keys to delete: expired, or revoked. */
  readonly remove: KeyRecord[];
}

/**
 * Adds `fresh` as the next signing key. With no key signing now nor scheduled, it
 * signs at once (the first run); otherwise from `now + delay`, and every key that
 * would still sign then stops at that instant.
 */
export function planRotation(
  keys: readonly KeyRecord[],
  fresh: KeyRecord,
  options: { now: number; delay: number; accessTokenTtl: number },
): RotationPlan {
  const { now, accessTokenTtl } = options;
  const current = keys.filter((k) => isPublishedAt(k, now));
  const hasFutureSigner = current.some((k) => k.signs_until === undefined || k.signs_until > now);
  const startsAt = hasFutureSigner ? now + options.delay : now;
  const next: KeyRecord = { ...fresh, signs_from: startsAt };

  const keep: KeyRecord[] = [];
  const retiring: KeyRecord[] = [];
  for (const key of current) {
    if (key.signs_until === undefined || key.signs_until > startsAt) retiring.push(retire(key, startsAt, accessTokenTtl));
    else keep.push(key);
  }
  return { keep, create: [next], retire: retiring, remove: keys.filter((k) => !isPublishedAt(k, now)) };
}

/** Deletes the keys whose tokens have all expired; changes nothing else. */
export function planCleanup(keys: readonly KeyRecord[], now: number): RotationPlan {
  return {
    keep: keys.filter((k) => isPublishedAt(k, now)),
    create: [],
    retire: [],
    remove: keys.filter((k) => !isPublishedAt(k, now)),
  };
}

/**
 * Removes a compromised key at once. If that leaves nothing signing now, `replacement`
 * signs immediately (a revoked key must not keep signing while a successor waits out
 * its delay), until the earliest already-scheduled key takes over.
 */
export function planRevocation(
  keys: readonly KeyRecord[],
  kid: string,
  replacement: KeyRecord,
  options: { now: number; accessTokenTtl: number },
): RotationPlan {
  const { now } = options;
  const revoked = keys.filter((k) => k.kid === kid);
  const rest = keys.filter((k) => k.kid !== kid && isPublishedAt(k, now));
  const expired = keys.filter((k) => k.kid !== kid && !isPublishedAt(k, now));
  if (signingKeyAt(rest, now)) return { keep: rest, create: [], retire: [], remove: [...revoked, ...expired] };

  const scheduled = rest.filter((k) => k.signs_from > now).map((k) => k.signs_from);
  const handOver = scheduled.length > 0 ? Math.min(...scheduled) : undefined;
  const stopgap: KeyRecord =
    handOver === undefined
      ? { ...replacement, signs_from: now }
      : retire({ ...replacement, signs_from: now }, handOver, options.accessTokenTtl);
  return { keep: rest, create: [stopgap], retire: [], remove: [...revoked, ...expired] };
}

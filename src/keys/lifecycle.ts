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
 *
 * The invariant every plan keeps: after it, some key signs at every instant from now
 * on (`firstUnsignedInstant` is undefined), so no instance is ever left without a
 * signing key, whatever is revoked or pruned.
 */

export function signsAt(key: KeyRecord, now: number): boolean {
  return key.signs_from <= now && (key.signs_until === undefined || now < key.signs_until);
}

export function isPublishedAt(key: KeyRecord, now: number): boolean {
  return key.publish_until === undefined || now < key.publish_until;
}

/** Past both its signing window and its publication: every token it signed has expired, so it may go. */
export function isExpiredAt(key: KeyRecord, now: number): boolean {
  return !isPublishedAt(key, now) && key.signs_until !== undefined && key.signs_until <= now;
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

/**
 * Where a key stands at `now`, as `keys list` shows it: `signing` (the one key that signs
 * now), `scheduled` (published, signs later), `retiring` (published, signs no more: its
 * window ended, is empty, or a newer key outranks it), `expired` (every token it signed
 * has expired: the next run deletes it).
 */
export type KeyState = 'signing' | 'scheduled' | 'retiring' | 'expired';

export function keyStateAt(key: KeyRecord, keys: readonly KeyRecord[], now: number): KeyState {
  if (isExpiredAt(key, now)) return 'expired';
  if (signingKeyAt(keys, now)?.kid === key.kid) return 'signing';
  const willSign = key.signs_from > now && (key.signs_until === undefined || key.signs_until > key.signs_from);
  return willSign ? 'scheduled' : 'retiring';
}

/**
 * The key that takes over signing next: of the keys scheduled at `now` (published, signing
 * later), the one whose window opens first; undefined when no successor is scheduled.
 */
export function nextScheduledKey<K extends KeyRecord>(keys: readonly K[], now: number): K | undefined {
  let next: K | undefined;
  for (const key of keys) {
    if (keyStateAt(key, keys, now) !== 'scheduled') continue;
    if (!next || key.signs_from < next.signs_from) next = key;
  }
  return next;
}

/**
 * The first instant from `now` on at which no key signs, or undefined when the signing
 * windows of `keys` cover [now, ∞) without a gap.
 */
export function firstUnsignedInstant(keys: readonly KeyRecord[], now: number): number | undefined {
  let instant = now;
  for (;;) {
    const signing = keys.filter((k) => signsAt(k, instant));
    if (signing.length === 0) return instant;
    if (signing.some((k) => k.signs_until === undefined)) return undefined;
    // Strictly later than `instant`: each of them signs at `instant`, so ends after it.
    instant = Math.max(...signing.map((k) => k.signs_until as number));
  }
}

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
 * Adds `fresh` as the next signing key. With no key signing now it signs at once (the
 * first run); otherwise from `now + delay`, and every key that would still sign then
 * stops at that instant.
 */
export function planRotation(
  keys: readonly KeyRecord[],
  fresh: KeyRecord,
  options: { now: number; delay: number; accessTokenTtl: number },
): RotationPlan {
  const { now, accessTokenTtl } = options;
  const current = keys.filter((k) => !isExpiredAt(k, now));
  const startsAt = signingKeyAt(current, now) ? now + options.delay : now;
  const next: KeyRecord = { ...fresh, signs_from: startsAt };

  const keep: KeyRecord[] = [];
  const retiring: KeyRecord[] = [];
  for (const key of current) {
    if (key.signs_until === undefined || key.signs_until > startsAt) retiring.push(retire(key, startsAt, accessTokenTtl));
    else keep.push(key);
  }
  const draft = { keep, create: [next], retire: retiring, remove: keys.filter((k) => isExpiredAt(k, now)) };
  return closeSigningGaps(draft, undefined, now, accessTokenTtl);
}

/**
 * Deletes the keys whose tokens have all expired, never one that signs now or is still
 * published; `spare` signs at once only if no key is left signing now.
 */
export function planCleanup(keys: readonly KeyRecord[], spare: KeyRecord, options: { now: number; accessTokenTtl: number }): RotationPlan {
  const { now } = options;
  const draft = { keep: keys.filter((k) => !isExpiredAt(k, now)), create: [], retire: [], remove: keys.filter((k) => isExpiredAt(k, now)) };
  return closeSigningGaps(draft, spare, now, options.accessTokenTtl);
}

/**
 * Removes a compromised key at once. If that leaves nothing signing now, `replacement`
 * signs immediately (a revoked key must not keep signing while a successor waits out
 * its delay), until the earliest already-scheduled key takes over; if it leaves a gap
 * later, the key before the gap signs on.
 */
export function planRevocation(
  keys: readonly KeyRecord[],
  kid: string,
  replacement: KeyRecord,
  options: { now: number; accessTokenTtl: number },
): RotationPlan {
  const { now } = options;
  const others = keys.filter((k) => k.kid !== kid);
  const draft = {
    keep: others.filter((k) => !isExpiredAt(k, now)),
    create: [],
    retire: [],
    remove: [...keys.filter((k) => k.kid === kid), ...others.filter((k) => isExpiredAt(k, now))],
  };
  return closeSigningGaps(draft, replacement, now, options.accessTokenTtl);
}

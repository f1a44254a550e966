import type { SecurityEvents } from '../events/types.js';
import type { Keystore } from './keystore.js';

/** Reports the keys as loaded now (`key.loaded`: how many, and which one signs at `now`). */
export function reportKeysLoaded(keystore: Keystore, events: SecurityEvents, reason: string, now: number): void {
  events.emit({ event: 'key.loaded', reason, keys: keystore.keyCount, signingKid: keystore.signingKeyAt(now)?.kid });
}

/**
 * Reloads KEYS_DIR and reports the outcome: `key.loaded`, or `key.reload_failed` (the
 * previous keys stay). The result is returned for the caller's own log lines.
 */
export async function reloadKeysReporting(
  keystore: Keystore,
  events: SecurityEvents,
  reason: string,
  now: () => number,
): ReturnType<Keystore['reload']> {
  const result = await keystore.reload();
  if (result.ok) reportKeysLoaded(keystore, events, reason, now());
  else events.emit({ event: 'key.reload_failed', reason, message: result.error.message });
  return result;
}

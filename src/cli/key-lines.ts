import type { KeyRecord } from '../keys/key-file.js';
import type { KeyState } from '../keys/lifecycle.js';
import type { KeyChange } from '../keys/rotation.js';

/** A key time for operators: ISO 8601, or `open-ended` for a window without an end. */
function iso(seconds: number | undefined): string {
  return seconds === undefined ? 'open-ended' : new Date(seconds * 1000).toISOString();
}

/** The line `keys rotate`, `revoke` and `prune` print for one change, e.g. `created  <kid> ES256 published now, signs from <time>`. */
export function describeKeyChange(change: KeyChange): string {
  const { action, key } = change;
  const name = `${action.padEnd(8)} ${key.kid} ${key.alg}`;
  switch (change.action) {
    case 'created': {
      const window = `published now, signs from ${iso(key.signs_from)}${key.signs_until ? ` until ${iso(key.signs_until)}` : ''}`;
      if (!change.stopGap) return `${name} ${window}`;
      return `${name} ${window} ${change.stopGap.replaces ? `(replaces revoked ${change.stopGap.replaces})` : '(no other key signs now)'}`;
    }
    case 'extended':
      return `${name} signs until ${iso(key.signs_until)} instead of ${iso(change.from)} (no other key would sign from then), published until ${iso(key.publish_until)}`;
    case 'retiring':
      return `${name} signs until ${iso(key.signs_until)}, published until ${iso(key.publish_until)}`;
    case 'kept':
      return `${name} signs ${iso(key.signs_from)} to ${iso(key.signs_until)}, published until ${iso(key.publish_until)}`;
    case 'deleted':
      return `${name} removed: every token it signed expired at ${iso(key.publish_until)}`;
    case 'revoked':
      return `${name} removed at once: its tokens fail once verifiers refresh their JWKS`;
  }
}

/** The line `keys list` prints for one key, e.g. `<kid> ES256 signing   signs 2026-… to open-ended, published until open-ended, created 2026-…`. */
export function describeKey(key: KeyRecord, state: KeyState): string {
  return (
    `${key.kid} ${key.alg} ${state.padEnd(9)} signs ${iso(key.signs_from)} to ${iso(key.signs_until)}, ` +
    `published until ${iso(key.publish_until)}, created ${iso(key.created_at)}`
  );
}

import type { Keystore } from '../keys/keystore.js';
import { chainAlgorithms, chainOf, isPublishedAt, keyStateAt, type KeyState } from '../keys/lifecycle.js';

/**
 * The signing keys as the admin API shows them, read-only (keys stay the rotation
 * command's, which every instance reads from KEYS_DIR): each chain, its keys, and where
 * each stands now (the lifecycle's states, as `keys list` prints them). Never key material.
 */

export interface KeyView {
  readonly kid: string;
  readonly alg: string;
  /** `scheduled` (published, signs later), `signing`, `retiring` (published, signs no more), `expired`. */
  readonly state: KeyState;
  /** In the JWKS now. */
  readonly published: boolean;
  readonly created_at: number;
  readonly signs_from: number;
  readonly signs_until?: number;
  readonly publish_until?: number;
}

export interface KeyChainView {
  readonly alg: string;
  /** The chain that signs access tokens (ACCESS_TOKEN_SIGNING_ALG); the others sign ID tokens. */
  readonly signs_access_tokens: boolean;
  readonly keys: readonly KeyView[];
}

export function keyChains(keystore: Pick<Keystore, 'keyTimes' | 'accessTokenAlgorithm'>, now: number): KeyChainView[] {
  const keys = keystore.keyTimes();
  return chainAlgorithms(keys).map((alg) => {
    const chain = chainOf(keys, alg);
    return {
      alg,
      signs_access_tokens: alg === keystore.accessTokenAlgorithm,
      keys: [...chain]
        .sort((a, b) => a.signs_from - b.signs_from || a.created_at - b.created_at)
        .map((key) => ({
          kid: key.kid,
          alg: key.alg,
          state: keyStateAt(key, chain, now),
          published: isPublishedAt(key, now),
          created_at: key.created_at,
          signs_from: key.signs_from,
          ...(key.signs_until !== undefined ? { signs_until: key.signs_until } : {}),
          ...(key.publish_until !== undefined ? { publish_until: key.publish_until } : {}),
        })),
    };
  });
}

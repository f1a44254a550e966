import type { Clock } from '../clock.js';
import type { LegacyRefreshTokenStore, RefreshFamilyRecord, RefreshFamilyStore } from '../store/types.js';
import { refOf } from './opaque.js';
import { parseRefreshToken } from './refresh-token-format.js';
import type { RefreshTokenSealing } from './refresh-token-sealer.js';

/** What introspection and revocation read of refresh tokens. */
export interface RefreshTokenStatusDependencies {
  readonly refreshTokens: Pick<RefreshFamilyStore, 'readRefreshFamily'> & {
    readonly legacyRefreshTokens?: LegacyRefreshTokenStore | undefined;
  };
  readonly refreshTokenSealing: RefreshTokenSealing;
  readonly clock: Clock;
}

/** A refresh token of ours and where it stands. */
export interface RefreshTokenStatus {
  readonly grantId: string;
  readonly family: RefreshFamilyRecord;
  /** current: the one usable token of the family; rotated: replaced by a successor; revoked: the family is dead. */
  readonly state: 'current' | 'rotated' | 'revoked';
  /** Milliseconds since the epoch. */
  readonly issuedAt: number;
  readonly expiresAt: number;
}

/**
 * `not_refresh_token` when the value cannot be a refresh token (then it may be an access
 * token), undefined when it is shaped like one but is not ours, or its family is gone.
 * A token of today's format is opened first (no store access for a forgery), then its
 * family's state is read: one store round trip.
 */
export async function refreshTokenStatus(
  value: string,
  deps: RefreshTokenStatusDependencies,
): Promise<RefreshTokenStatus | undefined | 'not_refresh_token'> {
  const presented = parseRefreshToken(value);
  if (!presented) {
    const legacy = refOf(value);
    if (!legacy) return 'not_refresh_token';
    const view = await deps.refreshTokens.legacyRefreshTokens?.readRefreshToken(legacy);
    return view && { grantId: legacy.grantId, ...view };
  }
  const family = (await deps.refreshTokenSealing.sealer()).open(presented);
  if (!family) return undefined;
  const state = await deps.refreshTokens.readRefreshFamily(presented.grantId);
  if (!state) return undefined;
  const { grantId } = presented;
  if (state.revoked) return { grantId, family, state: 'revoked', issuedAt: state.issuedAt, expiresAt: state.expiresAt };
  // An earlier generation was rotated; its own issue and expiry times are no longer kept.
  if (presented.generation < state.generation) return { grantId, family, state: 'rotated', issuedAt: 0, expiresAt: 0 };
  const current = presented.generation === state.generation && presented.digest === state.currentDigest;
  if (!current || state.expiresAt <= deps.clock()) return undefined;
  return { grantId, family, state: 'current', issuedAt: state.issuedAt, expiresAt: state.expiresAt };
}

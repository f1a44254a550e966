import type { ScriptCommands } from './redis-scripts.js';
import { refusedOnRecord, type RotationReply, rotationOutcome } from './redis-refresh.js';
import type {
  LegacyRefreshTokenRef,
  LegacyRefreshTokenStore,
  LegacyRefreshTokenView,
  RefreshFamilyRecord,
  RotationOptions,
  RotationOutcome,
} from './refresh-types.js';

/**
 * The refresh families written before constant-size families (src/store/lua-legacy.ts),
 * served until the last of them expires: REFRESH_TOKEN_TTL after the upgrade, this file
 * can be deleted with the legacy scripts.
 */
export class RedisLegacyRefreshTokens implements LegacyRefreshTokenStore {
  constructor(private readonly redis: ScriptCommands) {}

  async readRefreshToken(token: LegacyRefreshTokenRef): Promise<LegacyRefreshTokenView | undefined> {
    const { keys } = this.redis;
    const reply = await this.redis.call('read refresh token', () =>
      this.redis.script<[] | [string, LegacyRefreshTokenView['state'], string, number]>(
        'legacyReadRefreshToken',
        [keys.family(token.grantId), keys.legacyRefreshToken(token)],
        [token.digest],
      ),
    );
    if (reply.length === 0) return undefined;
    const [data, state, issuedAt, ttlMs] = reply;
    return {
      family: JSON.parse(data) as RefreshFamilyRecord,
      state,
      issuedAt: Number(issuedAt),
      expiresAt: this.redis.clock() + ttlMs,
    };
  }

  async rotateRefreshToken(
    presented: LegacyRefreshTokenRef,
    successor: LegacyRefreshTokenRef,
    sealedResponse: string,
    options: RotationOptions,
  ): Promise<RotationOutcome> {
    const { keys } = this.redis;
    const reply = await this.redis.call('rotate refresh token', () =>
      this.redis.acknowledgedScript<RotationReply>(
        'legacyRotateRefreshToken',
        [
          keys.family(presented.grantId),
          keys.legacyRefreshToken(presented),
          keys.legacyRefreshToken(successor),
          keys.legacyGrace(presented),
        ],
        [this.redis.clock(), presented.digest, successor.digest, options.idleSeconds * 1000, options.graceSeconds * 1000, sealedResponse],
        refusedOnRecord,
      ),
    );
    return rotationOutcome(reply);
  }
}

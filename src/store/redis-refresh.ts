import { randomBytes } from 'node:crypto';
import type { ScriptCommands } from './redis-scripts.js';
import type {
  FirstRefreshToken,
  RefreshFamilyState,
  RefreshFamilyStore,
  RefreshTokenRef,
  RotationOptions,
  RotationOutcome,
} from './refresh-types.js';

/** The reply of ROTATE_REFRESH_FAMILY and LEGACY_ROTATE_REFRESH_TOKEN (src/store/lua.ts). */
export type RotationReply = [0 | 1 | 3 | 4] | [2, string];

export function rotationOutcome(reply: RotationReply): RotationOutcome {
  switch (reply[0]) {
    case 1:
      return { status: 'rotated' };
    case 2:
      return { status: 'grace', sealedResponse: reply[1] };
    case 3:
      return { status: 'reused' };
    default:
      return { status: 'invalid' };
  }
}

/**
 * A reuse detected, or a revoked family: refused on what the primary holds, so answered
 * whether or not a replica acknowledged (see replica-ack.ts). A rotation or a grace answer
 * issues tokens and waits; so does "nothing found", which a primary that lost data could say.
 */
export const refusedOnRecord = (reply: RotationReply): boolean => reply[0] === 3 || reply[0] === 4;

/**
 * Refresh families of constant size in Redis: `{grantId}:family` (a small hash, its TTL
 * the absolute lifetime) and `{grantId}:grace` (the one grace record), whatever the
 * number of rotations; one script, so one round trip, per rotation.
 */
export class RedisRefreshFamilies implements RefreshFamilyStore {
  constructor(private readonly redis: ScriptCommands) {}

  async refreshTokenKey(candidate: Buffer = randomBytes(32)): Promise<Buffer> {
    const encoded = await this.redis.call('refresh token key', () =>
      this.redis.acknowledgedScript<string>('refreshTokenKey', [this.redis.keys.refreshTokenKey()], [candidate.toString('base64url')]),
    );
    return Buffer.from(encoded, 'base64url');
  }

  async startRefreshFamily(grantId: string, first: FirstRefreshToken): Promise<boolean> {
    const now = this.redis.clock();
    const started = await this.redis.call('create refresh family', () =>
      this.redis.script(
        'startRefreshFamily',
        [this.redis.keys.family(grantId)],
        [first.digest, now, now + first.lifetimes.idleSeconds * 1000, first.lifetimes.absoluteSeconds * 1000],
      ),
    );
    return started === 1;
  }

  async readRefreshFamily(grantId: string): Promise<RefreshFamilyState | undefined> {
    const reply = await this.redis.call('read refresh token', () =>
      this.redis.script<[] | [string, string, string, string, string, number]>('readRefreshFamily', [this.redis.keys.family(grantId)], []),
    );
    if (reply.length === 0) return undefined;
    const [generation, currentDigest, revoked, idleDeadline, issuedAt, ttlMs] = reply;
    return {
      generation: Number(generation),
      currentDigest,
      revoked: revoked === '1',
      issuedAt: Number(issuedAt),
      expiresAt: Math.min(Number(idleDeadline), this.redis.clock() + ttlMs),
    };
  }

  async rotateRefreshFamily(
    presented: RefreshTokenRef,
    successorDigest: string,
    sealedResponse: string,
    options: RotationOptions,
  ): Promise<RotationOutcome> {
    const now = this.redis.clock();
    const reply = await this.redis.call('rotate refresh token', () =>
      this.redis.acknowledgedScript<RotationReply>(
        'rotateRefreshFamily',
        [this.redis.keys.family(presented.grantId), this.redis.keys.grace(presented.grantId)],
        [
          now,
          presented.generation,
          presented.digest,
          successorDigest,
          now + options.idleSeconds * 1000,
          options.graceSeconds * 1000,
          sealedResponse,
        ],
        refusedOnRecord,
      ),
    );
    return rotationOutcome(reply);
  }
}

import { mintOpaqueToken, newGrantId } from '../../src/tokens/opaque.js';
import type { RefreshFamilyRecord, RefreshLifetimes } from '../../src/store/types.js';
import type { RedisTestStore } from './redis-stores.js';

/**
 * The script that started refresh families before constant-size families, verbatim, so a
 * test can write a family exactly as a server of that version did (family data in the
 * family hash, one key per token).
 */
const CREATE_REFRESH_FAMILY_BEFORE_UPGRADE = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'data', ARGV[1], 'current', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
redis.call('HSET', KEYS[2], 'issued_at', ARGV[3])
redis.call('PEXPIRE', KEYS[2], math.min(tonumber(ARGV[4]), tonumber(ARGV[5])))
return 1
`;

/** Writes a family as the previous version did; returns its grant id and first token (`<grantId>.<secret>`). */
export async function writeLegacyRefreshFamily(
  opened: RedisTestStore,
  family: RefreshFamilyRecord,
  lifetimes: RefreshLifetimes,
): Promise<{ grantId: string; token: string }> {
  const grantId = newGrantId();
  const first = mintOpaqueToken(grantId);
  const prefix = `${opened.keyPrefix}{${grantId}}`;
  const created = await (
    await opened.raw()
  ).eval(
    CREATE_REFRESH_FAMILY_BEFORE_UPGRADE,
    2,
    `${prefix}:family`,
    `${prefix}:rt:${first.ref.digest}`,
    JSON.stringify(family),
    first.ref.digest,
    opened.clock.now,
    lifetimes.absoluteSeconds * 1000,
    lifetimes.idleSeconds * 1000,
  );
  if (created !== 1) throw new Error('the legacy family was not written');
  return { grantId, token: first.value };
}

/**
 * The scripts of the refresh families written before constant-size families: a family
 * hash with the family data and the current digest (`{g}:family`: data, current,
 * revoked), one key per token (`{g}:rt:<digest>`) and one grace record per rotated token
 * (`{g}:grace:<digest>`). They serve those families until the last one expires
 * (REFRESH_TOKEN_TTL after the upgrade); then this file and src/store/redis-legacy-refresh.ts
 * can go. Same conventions as src/store/lua.ts: only declared keys, all under one grant's tag.
 */

/**
 * A consistent view of a refresh token and its family.
 *   KEYS[1] family key   KEYS[2] token key   ARGV[1] token digest
 *   returns {} when the family or the token is gone, else
 *   {data, state, issued_at (ms), token TTL (ms)} with state current|rotated|revoked
 */
export const LEGACY_READ_REFRESH_TOKEN = `
local data = redis.call('HGET', KEYS[1], 'data')
local issued = redis.call('HGET', KEYS[2], 'issued_at')
if not data or not issued then return {} end
local state = 'rotated'
if redis.call('HGET', KEYS[1], 'revoked') == '1' then state = 'revoked'
elseif redis.call('HGET', KEYS[1], 'current') == ARGV[1] then state = 'current' end
return {data, state, issued, redis.call('PTTL', KEYS[2])}
`;

/**
 * Refresh token rotation with reuse detection (RFC 9700 §4.14.2), in one atomic step.
 *   KEYS[1] family  KEYS[2] presented token  KEYS[3] successor token  KEYS[4] grace record
 *   ARGV[1] now (ms)  ARGV[2] presented digest  ARGV[3] successor digest
 *   ARGV[4] idle TTL (ms)  ARGV[5] grace window (ms, 0 = off)  ARGV[6] sealed successor response
 *   returns {1} rotated, {2, sealed} grace retry, {3} reuse (family revoked now), {0} invalid
 */
export const LEGACY_ROTATE_REFRESH_TOKEN = `
if not redis.call('HGET', KEYS[1], 'data') then return {0} end
if redis.call('HGET', KEYS[1], 'revoked') == '1' then return {0} end
if redis.call('EXISTS', KEYS[2]) == 0 then return {0} end
local current = redis.call('HGET', KEYS[1], 'current')
if current == ARGV[2] then
  local familyTtl = redis.call('PTTL', KEYS[1])
  redis.call('HSET', KEYS[3], 'issued_at', ARGV[1])
  redis.call('PEXPIRE', KEYS[3], math.min(familyTtl, tonumber(ARGV[4])))
  redis.call('HSET', KEYS[1], 'current', ARGV[3])
  -- the rotated token is remembered as long as its family lives, so a late reuse is still caught
  redis.call('HSET', KEYS[2], 'rotated_at', ARGV[1], 'successor', ARGV[3])
  redis.call('PEXPIRE', KEYS[2], familyTtl)
  if tonumber(ARGV[5]) > 0 then redis.call('SET', KEYS[4], ARGV[6], 'PX', ARGV[5]) end
  return {1}
end
local successor = redis.call('HGET', KEYS[2], 'successor')
if successor then
  local sealed = redis.call('GET', KEYS[4])
  -- grace: inside the window, only for the token just rotated (its successor still current), once
  if sealed and successor == current and redis.call('HSETNX', KEYS[2], 'grace_used', ARGV[1]) == 1 then
    return {2, sealed}
  end
  redis.call('HSET', KEYS[1], 'revoked', '1')
  redis.call('DEL', KEYS[4])
  return {3}
end
return {0}
`;

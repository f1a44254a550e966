/**
 * Lua scripts, registered once with ioredis `defineCommand` (EVALSHA, falling back to
 * EVAL). Each touches only the keys it is given, all under one hash tag (a grant's, or
 * one attempt counter's), so they run unchanged on Redis Cluster.
 */

/**
 * Creates a single-use record and its expiry in one step: a key without a TTL must
 * never exist. Refuses to overwrite (a digest collision, or a caller bug).
 *   KEYS[1] record key   ARGV[1] JSON record   ARGV[2] TTL in milliseconds
 *   returns 1 when created, 0 when the key already existed
 */
export const CREATE_RECORD = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'data', ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
`;

/**
 * Check, mark used, and return the prior state in one atomic step, so of many
 * concurrent redemptions exactly one wins (a find-then-update in two round trips is
 * the race that let concurrent code redemptions both succeed elsewhere). The used
 * record stays, with its original TTL, as a tombstone that detects replays.
 *   KEYS[1] record key   ARGV[1] time of use (ms)
 *   returns {0} unknown or expired, {1, data} consumed now, {2, data} already used
 */
export const CONSUME_RECORD = `
local data = redis.call('HGET', KEYS[1], 'data')
if not data then return {0} end
if redis.call('HSETNX', KEYS[1], 'used', ARGV[1]) == 1 then return {1, data} end
return {2, data}
`;

/**
 * Starts a refresh-token family and its first token. A family key that already exists
 * is a revocation mark left by a replayed code: then nothing is created.
 *   KEYS[1] family key   KEYS[2] token key
 *   ARGV[1] JSON family  ARGV[2] token digest  ARGV[3] now (ms)
 *   ARGV[4] family TTL (ms)  ARGV[5] token idle TTL (ms)
 *   returns 1 when created, 0 when the grant was revoked first
 */
export const CREATE_REFRESH_FAMILY = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'data', ARGV[1], 'current', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
redis.call('HSET', KEYS[2], 'issued_at', ARGV[3])
redis.call('PEXPIRE', KEYS[2], math.min(tonumber(ARGV[4]), tonumber(ARGV[5])))
return 1
`;

/**
 * Marks a grant revoked, creating the mark if the family does not exist yet, and keeps
 * it at least ARGV[1] ms (never shortening a longer TTL).
 *   KEYS[1] family key   ARGV[1] minimum TTL (ms)
 */
export const REVOKE_GRANT = `
redis.call('HSET', KEYS[1], 'revoked', '1')
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[1]) then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return 1
`;

/**
 * Reserves one attempt under a limit, in one atomic step (compare, then count), so of
 * any number of concurrent attempts at most ARGV[1] are counted in a window that opens
 * at the first one. A counter never lives without its TTL.
 *   KEYS[1] counter key   ARGV[1] limit   ARGV[2] window (ms)
 *   returns {1, 0} reserved, {0, milliseconds until the window closes} refused
 */
export const RESERVE_ATTEMPT = `
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
if count < tonumber(ARGV[1]) then
  redis.call('INCR', KEYS[1])
  if redis.call('PTTL', KEYS[1]) < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
  return {1, 0}
end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  ttl = tonumber(ARGV[2])
end
return {0, ttl}
`;

/**
 * Gives one reserved attempt back. A plain DECR would create a missing counter without
 * a TTL; the last reservation deletes the counter instead of leaving a zero.
 *   KEYS[1] counter key
 */
export const RELEASE_ATTEMPT = `
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
if count > 1 then redis.call('DECR', KEYS[1]) elseif count == 1 then redis.call('DEL', KEYS[1]) end
return 1
`;

/**
 * A consistent view of a refresh token and its family.
 *   KEYS[1] family key   KEYS[2] token key   ARGV[1] token digest
 *   returns {} when the family or the token is gone, else
 *   {data, state, issued_at (ms), token TTL (ms)} with state current|rotated|revoked
 */
export const READ_REFRESH_TOKEN = `
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
export const ROTATE_REFRESH_TOKEN = `
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

/**
 * A registered client and the time its registration has left, in one consistent read.
 *   KEYS[1] registration key
 *   returns {} when absent, else {JSON record, TTL (ms)}
 */
export const READ_CLIENT_REGISTRATION = `
local data = redis.call('GET', KEYS[1])
if not data then return {} end
return {data, redis.call('PTTL', KEYS[1])}
`;

/**
 * Adds a grant to one index (a user's or a client's sorted set, scored by the grant's
 * expiry), or raises its expiry (GT: never lowers it); drops the expired entries; sets the
 * key's TTL to the latest expiry it holds, so the index dies with its last grant.
 *   KEYS[1] index key   ARGV[1] member (JSON [grantId, sub, clientId])   ARGV[2] expiry (ms)   ARGV[3] now (ms)
 */
export const INDEX_GRANT = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[3])
redis.call('ZADD', KEYS[1], 'GT', ARGV[2], ARGV[1])
local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
local ttl = tonumber(last[2]) - tonumber(ARGV[3])
if ttl > 0 then redis.call('PEXPIRE', KEYS[1], math.ceil(ttl)) else redis.call('DEL', KEYS[1]) end
return 1
`;

/**
 * The unexpired entries of one index, after dropping the expired ones.
 *   KEYS[1] index key   ARGV[1] now (ms)
 *   returns {member, expiry, member, expiry, ...}, soonest expiry first
 */
export const LIST_GRANTS = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
return redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')
`;

/**
 * Remembers a user's consent to one client in the user's hash (field: client id, value:
 * "<expiry ms> <JSON consent>"), drops the consents that expired, and keeps the hash as
 * long as its latest consent.
 *   KEYS[1] the user's consents   ARGV[1] client id   ARGV[2] JSON consent   ARGV[3] expiry (ms)   ARGV[4] now (ms)
 */
export const REMEMBER_CONSENT = `
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3] .. ' ' .. ARGV[2])
local now = tonumber(ARGV[4])
local latest = 0
local fields = redis.call('HGETALL', KEYS[1])
for i = 1, #fields, 2 do
  local expiry = tonumber(string.match(fields[i + 1], '^(%d+) '))
  if expiry <= now then redis.call('HDEL', KEYS[1], fields[i]) elseif expiry > latest then latest = expiry end
end
if latest > now then redis.call('PEXPIRE', KEYS[1], latest - now) else redis.call('DEL', KEYS[1]) end
return 1
`;

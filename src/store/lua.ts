/**
 * Lua scripts, registered once with ioredis `defineCommand` (EVALSHA, falling back to
 * EVAL). Each touches only the keys it is given, all under one grant's hash tag, so
 * they run unchanged on Redis Cluster.
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

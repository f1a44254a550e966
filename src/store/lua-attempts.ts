/**
 * Attempt counters (src/store/redis-attempts.ts). Two keys under the counter's own hash
 * tag: KEYS[1] the attempts counted in the window (an integer, its TTL the window), KEYS[2]
 * how many of them are still in flight (an integer, its TTL ATTEMPT_IN_FLIGHT_SECONDS from
 * the latest reservation, so a check whose end is lost stops counting as in flight). A
 * counter never lives without its TTL; the last one taken away deletes a key rather than
 * leaving a zero, and settling never creates one.
 */

/** One in-flight attempt fewer on `key`; leaves how many are left in `checking`. */
const settleOne = (key: string) => `
local checking = tonumber(redis.call('GET', ${key}) or '0')
if checking > 1 then
  checking = redis.call('DECR', ${key})
else
  redis.call('DEL', ${key})
  checking = 0
end
`;

/**
 * Reserves one attempt under a limit, in one atomic step (compare, then count), so of any
 * number of concurrent attempts at most ARGV[1] are counted in a window that opens at the
 * first one. A refusal says whether attempts in flight hold the limit, read in the same step.
 *   ARGV[1] limit   ARGV[2] window (ms)   ARGV[3] in-flight lifetime (ms)
 *   returns {1, 0, 0} reserved, {0, milliseconds until the window closes, 1 if in flight else 0} refused
 */
export const RESERVE_ATTEMPT = `
local limit = tonumber(ARGV[1])
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
local checking = tonumber(redis.call('GET', KEYS[2]) or '0')
if count < limit then
  redis.call('INCR', KEYS[1])
  if redis.call('PTTL', KEYS[1]) < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
  redis.call('INCR', KEYS[2])
  redis.call('PEXPIRE', KEYS[2], ARGV[3])
  return {1, 0, 0}
end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  ttl = tonumber(ARGV[2])
end
if checking > 0 and count - checking < limit then return {0, ttl, 1} end
return {0, ttl, 0}
`;

/** Settles an attempt that stays counted (a failure, a registration): KEYS[1] is the in-flight key alone. */
export const KEEP_ATTEMPT = `${settleOne('KEYS[1]')}
return 1
`;

/** Settles an attempt by giving it back. */
export const RELEASE_ATTEMPT = `${settleOne('KEYS[2]')}
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
if count > 1 then redis.call('DECR', KEYS[1]) elseif count == 1 then redis.call('DEL', KEYS[1]) end
return 1
`;

/** Settles an attempt that succeeded: the count keeps only the attempts still in flight (DECRBY keeps the TTL). */
export const CLEAR_ATTEMPTS = `${settleOne('KEYS[2]')}
if checking == 0 then
  redis.call('DEL', KEYS[1])
  return 1
end
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
if count > checking then redis.call('DECRBY', KEYS[1], count - checking) end
return 1
`;

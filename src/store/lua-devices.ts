/**
 * The device authorization grant (RFC 8628) on Redis (src/store/redis-devices.ts). A
 * device authorization is one hash under its grant's tag, `<prefix>{<grantId>}:device:<digest>`:
 *   data      the record (JSON: client, scope, resources)
 *   client    the client it was started for
 *   exp       when the codes expire (ms; the key lives longer, so a late poll hears expired_token)
 *   status    pending | approved | denied | expired | used
 *   interval  the least seconds between two polls (grows on slow_down)
 *   last      the last poll (ms)
 *   approval  who approved, and what (JSON)
 * The user code's key (its own slot) names the device code's key; it is read apart.
 */

/**
 *   KEYS[1] the device authorization
 *   ARGV[1] record (JSON)   ARGV[2] client id   ARGV[3] codes' expiry (ms)   ARGV[4] interval (s)   ARGV[5] TTL (ms)
 *   returns 1 when created, 0 when the key existed
 */
export const START_DEVICE_AUTHORIZATION = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'data', ARGV[1], 'client', ARGV[2], 'exp', ARGV[3], 'status', 'pending', 'interval', ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1
`;

/**
 * Approves or denies a pending authorization whose codes have not expired.
 *   KEYS[1] the device authorization   ARGV[1] now (ms)   ARGV[2] approved | denied   ARGV[3] approval (JSON, or '')
 *   returns 1 when decided, 0 when it was unknown, decided, used or expired
 */
export const DECIDE_DEVICE_AUTHORIZATION = `
local f = redis.call('HMGET', KEYS[1], 'status', 'exp')
if f[1] ~= 'pending' or tonumber(ARGV[1]) >= tonumber(f[2]) then return 0 end
redis.call('HSET', KEYS[1], 'status', ARGV[2], 'approval', ARGV[3])
return 1
`;

/**
 * One poll of the token endpoint, in one atomic step, so of concurrent polls of an approved
 * authorization exactly one gets it. In order: unknown or another client's; used; expired
 * (the first such poll marks it); polled sooner than the interval after the last poll
 * (RFC 8628 §3.5: "the interval MUST be increased by 5 seconds for this and all subsequent
 * requests": kept here); then pending, denied, or approved, which is marked used as it is returned.
 *   KEYS[1] the device authorization   ARGV[1] now (ms)   ARGV[2] client id   ARGV[3] slow_down step (s)
 *   returns {0} unknown, {1} used, {2, 1|0} expired (1: first seen), {3, interval} slow_down,
 *   {4} pending, {5} denied, {6, data, approval} approved, now used
 */
export const POLL_DEVICE_AUTHORIZATION = `
local f = redis.call('HMGET', KEYS[1], 'client', 'status', 'exp', 'interval', 'last')
if f[1] ~= ARGV[2] then return {0} end
if f[2] == 'used' then return {1} end
local now = tonumber(ARGV[1])
if now >= tonumber(f[3]) then
  if f[2] == 'expired' then return {2, 0} end
  redis.call('HSET', KEYS[1], 'status', 'expired')
  return {2, 1}
end
redis.call('HSET', KEYS[1], 'last', ARGV[1])
local interval = tonumber(f[4])
if f[5] and now - tonumber(f[5]) < interval * 1000 then
  interval = interval + tonumber(ARGV[3])
  redis.call('HSET', KEYS[1], 'interval', interval)
  return {3, interval}
end
if f[2] == 'pending' then return {4} end
if f[2] == 'denied' then return {5} end
redis.call('HSET', KEYS[1], 'status', 'used')
local values = redis.call('HMGET', KEYS[1], 'data', 'approval')
return {6, values[1], values[2]}
`;

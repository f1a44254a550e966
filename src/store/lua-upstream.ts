/**
 * The sign-ins in progress at upstream providers, and the upstream tokens a grant holds
 * (src/store/redis-upstream.ts). A sign-in is taken only by the browser that started it;
 * a grant's tokens are read and written in one step with its revocation mark, under the
 * grant's hash tag: a revoked grant's tokens are never written and are deleted when read.
 */

/**
 *   KEYS[1] the sign-in: `<binding>.<sealed>`   ARGV[1] the binding the callback presents
 *   returns the sealed sign-in, now deleted; false when there is none; 0 when it is bound
 *   to another browser or provider: then it stays, for the callback it belongs to
 */
export const TAKE_UPSTREAM_SIGN_IN = `
local value = redis.call('GET', KEYS[1])
if not value then return false end
local dot = string.find(value, '.', 1, true)
-- Recorded by a version that kept no binding beside it: taken, and its sealed binding checked once opened.
if dot == nil then
  redis.call('DEL', KEYS[1])
  return value
end
if string.sub(value, 1, dot - 1) ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
return string.sub(value, dot + 1)
`;

/**
 *   KEYS[1] family key (its `revoked` field)   KEYS[2] the grant's upstream tokens
 *   ARGV[1] sealed tokens   ARGV[2] TTL (ms), or '' to replace only existing tokens and keep their TTL
 *   returns 1 when written, 0 when the grant is revoked or there was nothing to replace
 */
export const SAVE_GRANT_UPSTREAM_TOKENS = `
if redis.call('HGET', KEYS[1], 'revoked') == '1' then return 0 end
if ARGV[2] == '' then
  if redis.call('EXISTS', KEYS[2]) == 0 then return 0 end
  redis.call('SET', KEYS[2], ARGV[1], 'KEEPTTL')
else
  redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[2])
end
return 1
`;

/**
 *   KEYS[1] family key   KEYS[2] the grant's upstream tokens
 *   returns the sealed tokens, or false when there are none or the grant is revoked (then deleted)
 */
export const FIND_GRANT_UPSTREAM_TOKENS = `
if redis.call('HGET', KEYS[1], 'revoked') == '1' then
  redis.call('DEL', KEYS[2])
  return false
end
return redis.call('GET', KEYS[2])
`;

/**
 * The upstream tokens a grant holds (src/store/redis-upstream.ts), read and written in one
 * step with the grant's revocation mark, under the grant's hash tag: a revoked grant's
 * tokens are never written and are deleted when read.
 */

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

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
 * Fragment: marks a grant revoked in its family key (creating the mark if the family does
 * not exist yet) and keeps it at least `ttl` ms, never shortening a longer TTL.
 */
const revokeFamily = (family: string, ttl: string) => `
redis.call('HSET', ${family}, 'revoked', '1')
if redis.call('PTTL', ${family}) < tonumber(${ttl}) then redis.call('PEXPIRE', ${family}, ${ttl}) end`;

/**
 * Fragment: starts a family with its first token (generation 0). The family hash is
 * g (generation), c (current digest), p (previous digest), i (idle deadline of the
 * current token, ms), t (when it was issued, ms), revoked; its TTL is the absolute
 * lifetime. A family key that already exists is a revocation mark: nothing starts.
 */
const startFamily = (family: string, digest: string, now: string, idleDeadline: string, ttl: string, refused: string) => `
if redis.call('EXISTS', ${family}) == 1 then return ${refused} end
redis.call('HSET', ${family}, 'g', '0', 'c', ${digest}, 'i', ${idleDeadline}, 't', ${now})
redis.call('PEXPIRE', ${family}, ${ttl})`;

/**
 * Marks a grant revoked, creating the mark if the family does not exist yet, and keeps
 * it at least ARGV[1] ms (never shortening a longer TTL); the upstream tokens the grant
 * holds go with it.
 *   KEYS[1] family key   KEYS[2] the grant's upstream tokens   ARGV[1] minimum TTL (ms)
 */
export const REVOKE_GRANT = `${revokeFamily('KEYS[1]', 'ARGV[1]')}
redis.call('DEL', KEYS[2])
return 1
`;

/**
 * Revokes a grant an operator named by id, only when the store knows it: its family key
 * (a family, or a revocation mark) or its indexed mark exists. An unknown id (a typo)
 * writes nothing.
 *   KEYS[1] family key   KEYS[2] indexed mark   KEYS[3] the grant's upstream tokens
 *   ARGV[1] minimum TTL of the revocation mark (ms)
 *   returns 1 when revoked, 0 when unknown
 */
export const REVOKE_KNOWN_GRANT = `
if redis.call('EXISTS', KEYS[1]) == 0 and redis.call('EXISTS', KEYS[2]) == 0 then return 0 end${revokeFamily('KEYS[1]', 'ARGV[1]')}
redis.call('DEL', KEYS[3])
return 1
`;

/**
 * Marks a grant indexed, in its own slot, so it is known by its id as long as its index
 * entries live: keeps the mark at least ARGV[1] ms, never shortening a longer TTL.
 *   KEYS[1] indexed mark   ARGV[1] TTL (ms)
 */
export const MARK_INDEXED_GRANT = `
local ttl = tonumber(ARGV[1])
if ttl > 0 and redis.call('PTTL', KEYS[1]) < ttl then redis.call('SET', KEYS[1], '1', 'PX', ttl) end
return 1
`;

/**
 * Redeems an authorization code in one round trip: check, mark used and return the
 * prior state in one atomic step, so of many concurrent redemptions exactly one wins (a
 * find-then-update in two round trips is the race that let concurrent code redemptions
 * both succeed elsewhere); the used record stays, with its original TTL, as a tombstone; on the first use starts the
 * refresh family when a first token digest is given and the grant was not revoked first;
 * on a replay revokes the grant (RFC 6749 §4.1.2: the server "SHOULD revoke (when
 * possible) all tokens previously issued based on that authorization code"), and deletes
 * the upstream tokens the grant holds, as every revocation does.
 *   KEYS[1] code key   KEYS[2] family key   KEYS[3] the grant's upstream tokens
 *   ARGV[1] now (ms)   ARGV[2] revocation mark TTL (ms)   ARGV[3] first token digest ('' = no refresh token)
 *   ARGV[4] idle deadline of the first token (ms)   ARGV[5] family TTL (ms)
 *   returns {0} unknown or expired, {1, data, 1|0} consumed now (1: the family started), {2, data} replayed (grant revoked now)
 */
export const REDEEM_AUTHORIZATION_CODE = `
local data = redis.call('HGET', KEYS[1], 'data')
if not data then return {0} end
if redis.call('HSETNX', KEYS[1], 'used', ARGV[1]) == 0 then${revokeFamily('KEYS[2]', 'ARGV[2]')}
  redis.call('DEL', KEYS[3])
  return {2, data}
end
if ARGV[3] == '' then return {1, data, 0} end${startFamily('KEYS[2]', 'ARGV[3]', 'ARGV[1]', 'ARGV[4]', 'ARGV[5]', '{1, data, 0}')}
return {1, data, 1}
`;

/**
 * Starts a refresh family outside a code redemption (the password grant).
 *   KEYS[1] family key
 *   ARGV[1] first token digest   ARGV[2] now (ms)   ARGV[3] idle deadline (ms)   ARGV[4] family TTL (ms)
 *   returns 1 when started, 0 when the grant was revoked first
 */
export const START_REFRESH_FAMILY = `${startFamily('KEYS[1]', 'ARGV[1]', 'ARGV[2]', 'ARGV[3]', 'ARGV[4]', '0')}
return 1
`;

/**
 * A consistent read of a family's state.
 *   KEYS[1] family key
 *   returns {} when there is no family of the constant-size format (none, a revocation
 *   mark only, or a legacy family), else {generation, current digest, revoked ('1' or ''),
 *   idle deadline (ms), issued at (ms), family TTL (ms)}
 */
export const READ_REFRESH_FAMILY = `
local f = redis.call('HMGET', KEYS[1], 'g', 'c', 'revoked', 'i', 't')
if not f[1] then return {} end
return {f[1], f[2], f[3] or '', f[4], f[5], redis.call('PTTL', KEYS[1])}
`;

/**
 * Refresh token rotation with exact reuse detection (RFC 9700 §4.14.2), in one atomic
 * step, on a family of constant size. The presented token was already opened under the
 * refresh-token key, so it is genuine: its generation tells current from rotated.
 *   KEYS[1] family key   KEYS[2] grace record (hash: sealed, used)
 *   ARGV[1] now (ms)   ARGV[2] presented generation   ARGV[3] presented digest
 *   ARGV[4] successor digest   ARGV[5] successor idle deadline (ms)
 *   ARGV[6] grace window (ms, 0 = off)   ARGV[7] sealed successor response
 *   returns {1} rotated, {2, sealed} grace retry, {3} reuse (family revoked now), {4} the family
 *   was revoked before, {0} invalid (no family, or not a token it issued, or idle too long)
 */
export const ROTATE_REFRESH_FAMILY = `
local f = redis.call('HMGET', KEYS[1], 'g', 'c', 'p', 'i', 'revoked')
if f[5] == '1' then return {4} end
if not f[1] then return {0} end
local generation = tonumber(f[1])
local presented = tonumber(ARGV[2])
if presented > generation then return {0} end
if presented == generation then
  -- the current generation: its token, unless it died unused (the idle deadline)
  if f[2] ~= ARGV[3] or tonumber(f[4]) <= tonumber(ARGV[1]) then return {0} end
  redis.call('HSET', KEYS[1], 'g', tostring(generation + 1), 'c', ARGV[4], 'p', ARGV[3], 'i', ARGV[5], 't', ARGV[1])
  -- one grace record per family, for the token just rotated only
  redis.call('DEL', KEYS[2])
  if tonumber(ARGV[6]) > 0 then
    redis.call('HSET', KEYS[2], 'sealed', ARGV[7])
    redis.call('PEXPIRE', KEYS[2], ARGV[6])
  end
  return {1}
end
-- an earlier generation: reuse, except one retry of the token just rotated inside its window
if presented == generation - 1 and f[3] == ARGV[3] then
  local sealed = redis.call('HGET', KEYS[2], 'sealed')
  if sealed and redis.call('HSETNX', KEYS[2], 'used', ARGV[1]) == 1 then return {2, sealed} end
end
redis.call('HSET', KEYS[1], 'revoked', '1')
redis.call('DEL', KEYS[2])
return {3}
`;

/**
 * The refresh-token key, made by the first instance that asks: an existing key wins
 * (SET NX), so every instance reads the same one. The only key without a TTL: refresh
 * tokens are sealed under it for as long as they live.
 *   KEYS[1] key   ARGV[1] a fresh candidate (base64url)
 *   returns the key in force
 */
export const REFRESH_TOKEN_KEY = `
if redis.call('SET', KEYS[1], ARGV[1], 'NX') then return ARGV[1] end
return redis.call('GET', KEYS[1])
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
 * Adds an entry to one index (a sorted set scored by expiry: a user's or a client's grants,
 * a client's consenting users), or raises its expiry (GT: never lowers it); drops the
 * expired entries; sets the key's TTL to the latest expiry it holds, so the index dies
 * with its last entry.
 *   KEYS[1] index key   ARGV[1] member (a grant: JSON [grantId, sub, clientId, details...]; a consent: the sub)
 *   ARGV[2] expiry (ms)   ARGV[3] now (ms)
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
 * Drops entries read from an index, unless their expiry was raised since (written again
 * meanwhile: a consent given while the client's consents were being forgotten stays listed).
 * Removing the last entry deletes the key.
 *   KEYS[1] index key   ARGV[1], ARGV[2], ...: member, expiry as read (ms), member, expiry, ...
 */
export const UNLIST_UNCHANGED = `
for i = 1, #ARGV, 2 do
  local expiry = redis.call('ZSCORE', KEYS[1], ARGV[i])
  if expiry and tonumber(expiry) <= tonumber(ARGV[i + 1]) then redis.call('ZREM', KEYS[1], ARGV[i]) end
end
return 1
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

/**
 * Listings of records that live in keys of their own, each under its own hash tag (the
 * dynamically registered clients, the federated users' profiles), so the admin API can page
 * through them on a Cluster: three keys under one tag of the listing,
 *   KEYS[1] ids       sorted set, every score 0: its members in byte order (ZRANGE BYLEX, the pages)
 *   KEYS[2] expiries  sorted set scored by each member's expiry (ms): what is pruned
 *   KEYS[3] details   hash, member → a short JSON of what the list shows (or never written)
 * A member stays listed as long as its record lives; the listing dies with its last member
 * (every key has a TTL). A member listed without a record (a write between the two failed)
 * is harmless: the reader skips it.
 */

const PRUNE = `
local function prune(now, max)
  local expired = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now, 'LIMIT', 0, max)
  if #expired > 0 then
    redis.call('ZREM', KEYS[1], unpack(expired))
    redis.call('ZREM', KEYS[2], unpack(expired))
    redis.call('HDEL', KEYS[3], unpack(expired))
  end
end
`;

/**
 * Lists a member, or raises its expiry (never lowers it); prunes up to 100 expired members;
 * keeps the three keys as long as the latest expiry.
 *   ARGV[1] member   ARGV[2] expiry (ms)   ARGV[3] now (ms)   ARGV[4] details ('' keeps what is there)
 */
export const LIST_MEMBER = `${PRUNE}
local now = tonumber(ARGV[3])
redis.call('ZADD', KEYS[2], 'GT', ARGV[2], ARGV[1])
redis.call('ZADD', KEYS[1], 0, ARGV[1])
if ARGV[4] ~= '' then redis.call('HSET', KEYS[3], ARGV[1], ARGV[4]) end
prune(now, 100)
local last = redis.call('ZRANGE', KEYS[2], -1, -1, 'WITHSCORES')
local ttl = math.ceil(tonumber(last[2] or '0') - now)
if ttl > 0 then
  redis.call('PEXPIRE', KEYS[1], ttl)
  redis.call('PEXPIRE', KEYS[2], ttl)
  redis.call('PEXPIRE', KEYS[3], ttl)
else
  redis.call('DEL', KEYS[1])
  redis.call('DEL', KEYS[2])
  redis.call('DEL', KEYS[3])
end
return 1
`;

/** Removes a member.   ARGV[1] member */
export const UNLIST_MEMBER = `
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('HDEL', KEYS[3], ARGV[1])
return 1
`;

/**
 * One page of the unexpired members after ARGV[2] in byte order, at most ARGV[3] + 1 (one
 * more says another page follows); expired members met on the way are removed.
 *   ARGV[1] now (ms)   ARGV[2] the last member of the previous page ('' from the start)   ARGV[3] limit
 *   returns {{member, ...}, {expiry, ...}, {details or '', ...}}
 */
export const PAGE_MEMBERS = `
local now = tonumber(ARGV[1])
local limit = tonumber(ARGV[3])
local from = ARGV[2] == '' and '-' or ('(' .. ARGV[2])
local members, expiries, details = {}, {}, {}
while #members <= limit do
  local batch = redis.call('ZRANGE', KEYS[1], from, '+', 'BYLEX', 'LIMIT', 0, limit + 1)
  if #batch == 0 then break end
  for _, member in ipairs(batch) do
    local expiry = tonumber(redis.call('ZSCORE', KEYS[2], member) or '0')
    if expiry <= now then
      redis.call('ZREM', KEYS[1], member)
      redis.call('ZREM', KEYS[2], member)
      redis.call('HDEL', KEYS[3], member)
    elseif #members <= limit then
      members[#members + 1] = member
      expiries[#expiries + 1] = tostring(expiry)
      details[#details + 1] = redis.call('HGET', KEYS[3], member) or ''
    end
    from = '(' .. member
  end
end
return {members, expiries, details}
`;

/**
 * One member's expiry and details, if it is listed and unexpired: of the three keys, only
 *   KEYS[1] expiries   KEYS[2] details   ARGV[1] member   ARGV[2] now (ms)
 *   returns {} or {expiry, details or ''}
 */
export const READ_MEMBER = `
local expiry = tonumber(redis.call('ZSCORE', KEYS[1], ARGV[1]) or '0')
if expiry <= tonumber(ARGV[2]) then return {} end
return {tostring(expiry), redis.call('HGET', KEYS[2], ARGV[1]) or ''}
`;

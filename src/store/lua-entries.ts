import { ENTRY_KINDS } from './entry-types.js';

/**
 * The entry store's scripts (src/store/redis-entries.ts). Every key is under the one
 * `{entries}` hash tag: a kind's entries are the fields of one hash (so a snapshot reads
 * every entry from the keys it declares), its ids a sorted set by creation sequence, and a
 * counter is the version. A write checks, writes, bumps the version and announces the change
 * on the `{entries}` shard channel (SPUBLISH, Redis >= 7.0; declared as a key so Cluster
 * routes the script to the channel's shard) in one step. Entries are configuration: no TTL.
 *
 * A stored value is `{"rev":R,"created_at":C,"updated_at":U,"seq":S,"doc":{…}}`, written here
 * around the caller's JSON and read back with the pattern below.
 */

/** Reads rev, created_at and seq of a stored value (one the scripts wrote), into locals. */
const readMeta = (value: string) => `
local rev, created, seq = string.match(${value}, '^{"rev":(%d+),"created_at":(%d+),"updated_at":%d+,"seq":(%d+),')
if not rev then return redis.error_reply('unreadable entry') end`;

/** The stored value of a document. */
const value = (rev: string, created: string, updated: string, seq: string, doc: string) =>
  `'{"rev":' .. ${rev} .. ',"created_at":' .. ${created} .. ',"updated_at":' .. ${updated} .. ',"seq":' .. ${seq} .. ',"doc":' .. ${doc} .. '}'`;

/**
 * Creates an entry unless its id exists.
 *   KEYS[1] the kind's entries   KEYS[2] the kind's ids   KEYS[3] version   KEYS[4] channel
 *   ARGV[1] id   ARGV[2] document JSON   ARGV[3] now (s)   ARGV[4] kind
 *   returns {1, version} when created, {0} when the id exists
 */
export const CREATE_ENTRY = `
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then return {0} end
local version = redis.call('INCR', KEYS[3])
redis.call('HSET', KEYS[1], ARGV[1], ${value("'1'", 'ARGV[3]', 'ARGV[3]', 'version', 'ARGV[2]')})
redis.call('ZADD', KEYS[2], version, ARGV[1])
redis.call('SPUBLISH', KEYS[4], version .. ' ' .. ARGV[4] .. ' ' .. ARGV[1])
return {1, version}
`;

/**
 * Replaces an entry's document, when it exists and (ARGV[5] not empty) its rev is ARGV[5].
 *   KEYS[1] the kind's entries   KEYS[2] version   KEYS[3] channel
 *   ARGV[1] id   ARGV[2] document JSON   ARGV[3] now (s)   ARGV[4] kind   ARGV[5] expected rev or ''
 *   returns {1, version, rev, created_at, seq} when replaced, {0} when not found, {2, rev} when stale
 */
export const REPLACE_ENTRY = `
local current = redis.call('HGET', KEYS[1], ARGV[1])
if not current then return {0} end${readMeta('current')}
if ARGV[5] ~= '' and ARGV[5] ~= rev then return {2, tonumber(rev)} end
local version = redis.call('INCR', KEYS[2])
local next = tonumber(rev) + 1
redis.call('HSET', KEYS[1], ARGV[1], ${value('next', 'created', 'ARGV[3]', 'seq', 'ARGV[2]')})
redis.call('SPUBLISH', KEYS[3], version .. ' ' .. ARGV[4] .. ' ' .. ARGV[1])
return {1, version, next, tonumber(created), tonumber(seq)}
`;

/**
 * Deletes an entry, when it exists and (ARGV[3] not empty) its rev is ARGV[3].
 *   KEYS[1] the kind's entries   KEYS[2] the kind's ids   KEYS[3] version   KEYS[4] channel
 *   ARGV[1] id   ARGV[2] kind   ARGV[3] expected rev or ''
 *   returns {1, version} when deleted, {0} when not found, {2, rev} when stale
 */
export const DELETE_ENTRY = `
local current = redis.call('HGET', KEYS[1], ARGV[1])
if not current then return {0} end${readMeta('current')}
if ARGV[3] ~= '' and ARGV[3] ~= rev then return {2, tonumber(rev)} end
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
local version = redis.call('INCR', KEYS[3])
redis.call('SPUBLISH', KEYS[4], version .. ' ' .. ARGV[2] .. ' ' .. ARGV[1])
return {1, version}
`;

/**
 * Every entry of every kind, with the version they were read at.
 *   KEYS[1] version   KEYS[2..] the entries of each kind, in the order of ENTRY_KINDS
 *   returns {version or false, {id, value, …} of each kind…}
 */
export const READ_ENTRIES = `
return {redis.call('GET', KEYS[1]),${ENTRY_KINDS.map((_, i) => ` redis.call('HGETALL', KEYS[${i + 2}])`).join(',')}}
`;

/**
 * A page of a kind's entries in creation order: those after sequence ARGV[1], at most ARGV[2].
 *   KEYS[1] the kind's ids   KEYS[2] the kind's entries
 *   returns {more (0 or 1), id, value, id, value, …}
 */
export const LIST_ENTRIES = `
local limit = tonumber(ARGV[2])
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. ARGV[1], '+inf', 'LIMIT', 0, limit + 1)
local more = 0
if #ids > limit then
  more = 1
  table.remove(ids)
end
local page = {more}
if #ids == 0 then return page end
local values = redis.call('HMGET', KEYS[2], unpack(ids))
for i, id in ipairs(ids) do
  if values[i] then
    table.insert(page, id)
    table.insert(page, values[i])
  end
end
return page
`;

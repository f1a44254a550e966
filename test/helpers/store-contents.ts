import type { TestStore } from './stores.js';
import type { RedisTestStore } from './redis-stores.js';

/**
 * Everything a test store holds, as lines of text: on Redis "key value" for every key of the
 * store's prefix, or of the server with `everyKey` (every field of a hash, every member of a set or sorted set); in memory,
 * "path value" for every string the MemoryStore reaches, map keys included. To look for what
 * must never be there (a token in clear), or for a key that must be gone.
 */
export async function storeContents(s: TestStore, options: { readonly everyKey?: boolean } = {}): Promise<string[]> {
  return 'raw' in s
    ? redisContents(s as RedisTestStore, options.everyKey === true ? '*' : `${(s as RedisTestStore).keyPrefix}*`)
    : memoryContents(s.store);
}

/** Whether `lines` hold the upstream tokens of grant `grantId` (memory: `grant:<id>`, Redis: `{<id>}:upstream`). */
export function holdsGrantUpstreamTokens(lines: readonly string[], grantId: string): boolean {
  return lines.some((line) => line.includes(`/grant:${grantId}`) || line.includes(`{${grantId}}:upstream`));
}

/** `pattern`: the store's prefix, or `*` for every key of the server (a standalone one: SCAN reads one node). */
async function redisContents(s: RedisTestStore, pattern: string): Promise<string[]> {
  const redis = await s.raw();
  const lines: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    cursor = next;
    for (const key of keys) {
      const type = await redis.type(key);
      const values =
        type === 'string'
          ? [(await redis.get(key)) ?? '']
          : type === 'hash'
            ? Object.entries(await redis.hgetall(key)).map(([field, value]) => `${field} ${value}`)
            : type === 'set'
              ? await redis.smembers(key)
              : type === 'zset'
                ? await redis.zrange(key, 0, -1)
                : type === 'list'
                  ? await redis.lrange(key, 0, -1)
                  : [`(${type})`];
      lines.push(...values.map((value) => `${key} ${value}`));
    }
  } while (cursor !== '0');
  return lines;
}

function memoryContents(root: unknown): string[] {
  const lines: string[] = [];
  const seen = new Set<unknown>();
  const walk = (value: unknown, path: string): void => {
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
      lines.push(`${path} ${String(value)}`);
      return;
    }
    if (typeof value !== 'object' || value === null || seen.has(value) || Buffer.isBuffer(value)) return;
    seen.add(value);
    if (value instanceof Map) {
      for (const [key, entry] of value) {
        lines.push(`${path}/${String(key)}`);
        walk(entry, `${path}/${String(key)}`);
      }
    } else if (value instanceof Set) for (const entry of value) walk(entry, `${path}/*`);
    else for (const [key, entry] of Object.entries(value)) walk(entry, `${path}.${key}`);
  };
  walk(root, 'store');
  return lines;
}

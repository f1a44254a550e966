import type { Redis } from 'ioredis';
import type { Adapter, AdapterPayload } from 'oidc-provider';

/**
 * A Redis adapter for node-oidc-provider's models, after the project's example adapter
 * (example/adapters/redis.js): one JSON value per model instance with the model's TTL;
 * consumable models (codes, refresh tokens) are hashes with a `consumed` field; the keys
 * of one grant are listed under `grant:<id>` so revoking a grant deletes them.
 */

const PREFIX = 'oidc:';
const CONSUMABLE = new Set(['AuthorizationCode', 'RefreshToken', 'DeviceCode', 'BackchannelAuthenticationRequest']);
const GRANTABLE = new Set([...CONSUMABLE, 'AccessToken']);

const grantKeyFor = (grantId: string) => `${PREFIX}grant:${grantId}`;

export function redisAdapter(client: Redis): new (model: string) => Adapter {
  return class RedisAdapter implements Adapter {
    constructor(private readonly model: string) {}

    private key(id: string): string {
      return `${PREFIX}${this.model}:${id}`;
    }

    async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
      const key = this.key(id);
      const multi = client.multi();
      if (CONSUMABLE.has(this.model)) multi.hset(key, { payload: JSON.stringify(payload) });
      else multi.set(key, JSON.stringify(payload));
      if (expiresIn) multi.expire(key, expiresIn);
      if (GRANTABLE.has(this.model) && payload.grantId) {
        const grantKey = grantKeyFor(payload.grantId);
        multi.rpush(grantKey, key);
        const ttl = await client.ttl(grantKey);
        if (expiresIn > ttl) multi.expire(grantKey, expiresIn);
      }
      await multi.exec();
    }

    async find(id: string): Promise<AdapterPayload | undefined> {
      if (!CONSUMABLE.has(this.model)) {
        const value = await client.get(this.key(id));
        return value === null ? undefined : (JSON.parse(value) as AdapterPayload);
      }
      const { payload, ...rest } = await client.hgetall(this.key(id));
      if (payload === undefined) return undefined;
      return { ...(JSON.parse(payload) as AdapterPayload), ...(rest.consumed ? { consumed: Number(rest.consumed) } : {}) };
    }

    async findByUid(): Promise<undefined> {
      return undefined; // sessions and interactions are not used by the bench
    }

    async findByUserCode(): Promise<undefined> {
      return undefined; // no device flow in the bench
    }

    async consume(id: string): Promise<void> {
      await client.hset(this.key(id), 'consumed', Math.floor(Date.now() / 1000));
    }

    async destroy(id: string): Promise<void> {
      await client.del(this.key(id));
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      const grantKey = grantKeyFor(grantId);
      const keys = await client.lrange(grantKey, 0, -1);
      await client.del(...keys, grantKey);
    }
  };
}
